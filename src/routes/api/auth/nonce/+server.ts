import { json } from '@sveltejs/kit';
import { runtime } from '$lib/server/platform/runtime';
import { writeSessionCookie } from '$lib/server/auth/session';
import { nonceSession } from '$lib/server/auth/nonce';
import { createNonce } from '$lib/server/auth/siwe';
import type { RequestHandler } from './$types';

/**
 * Issues a one-time nonce into the sealed cookie; touches no database. The portal's Node server answers a
 * plain `GET /api/auth/nonce` itself (decision 0053, $lib/server/auth/nonce.ts answerNonce); this route
 * answers every other spelling, and on Vercel. Both issue the session of nonceSession.
 */
export const GET: RequestHandler = async ({ locals, cookies, url }) => {
	const now = Date.now();
	const nonce = createNonce();
	const { sessions, config } = runtime();
	const session = nonceSession(locals.session, nonce, now);
	await writeSessionCookie(cookies, url, sessions, session, now, config.safeAppOrigins.length > 0);
	return json({ nonce });
};
