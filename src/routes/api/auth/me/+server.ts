import { json } from '@sveltejs/kit';
import { getAddress } from 'viem';
import type { RequestHandler } from './$types';

/**
 * The caller's own address (checksummed) and admin flag; a missing or invalid session reads as signed out.
 * A reviewer who is not an admin also gets `isReviewer: true` (the header's Review link, decision 0028);
 * everyone else gets the contract's two fields exactly.
 */
export const GET: RequestHandler = ({ locals }) => {
	const member = locals.member;
	const body = { address: member ? getAddress(member.address) : null, isAdmin: member?.isAdmin ?? false };
	return json(member?.isReviewer && !member.isAdmin ? { ...body, isReviewer: true } : body);
};
