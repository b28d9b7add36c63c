import { json } from '@sveltejs/kit';
import { runtime } from '$lib/server/platform/runtime';
import { NONCE_TTL_SECONDS, writeSessionCookie, type SessionData } from '$lib/server/auth/session';
import { createNonce } from '$lib/server/auth/siwe';
import type { RequestHandler } from './$types';

/** Issues a one-time nonce into the sealed cookie; touches no database. */
export const GET: RequestHandler = async ({ locals, cookies, url }) => {
	const now = Date.now();
	const nonce = createNonce();
	const current = locals.session;
	// A signed-in session keeps its address and expiry, unless it would end before the nonce could be used.
	const session: SessionData =
		current?.address && current.expiresAt - now >= NONCE_TTL_SECONDS * 1000
			? { address: current.address, nonce, expiresAt: current.expiresAt }
			: { nonce, expiresAt: now + NONCE_TTL_SECONDS * 1000 };
	const { sessions, config } = runtime();
	await writeSessionCookie(cookies, url, sessions, session, now, config.safeAppOrigins.length > 0);
	return json({ nonce });
};
