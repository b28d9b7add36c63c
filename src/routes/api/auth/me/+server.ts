import { json } from '@sveltejs/kit';
import { getAddress } from 'viem';
import type { RequestHandler } from './$types';

/** The caller's own address (checksummed) and admin flag; a missing or invalid session reads as signed out. */
export const GET: RequestHandler = ({ locals }) => {
	const member = locals.member;
	return json({ address: member ? getAddress(member.address) : null, isAdmin: member?.isAdmin ?? false });
};
