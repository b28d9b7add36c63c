import { json } from '@sveltejs/kit';
import { readLimitedText } from '$lib/server/platform/http';
import { runtime } from '$lib/server/platform/runtime';
import { writeSessionCookie } from '$lib/server/auth/session';
import { MAX_VERIFY_BODY_BYTES, verifyAnswer } from '$lib/server/auth/verify';
import type { RequestHandler } from './$types';

/**
 * Verifies a signed message; on success signs the address in and upserts the member (verifyAnswer).
 * The portal's Node server answers a plain JSON post to `/api/auth/verify` itself (decision 0053,
 * $lib/server/auth/verify.ts answerVerify); this route answers every other request, and on Vercel.
 */
export const POST: RequestHandler = async ({ request, locals, cookies, url }) => {
	const { config, sessions } = runtime();
	const now = Date.now();
	const text = await readLimitedText(request, MAX_VERIFY_BODY_BYTES);
	const answer = await verifyAnswer(locals.session, text, now);
	// Every answer drops the nonce; a session already signed in stays as it was.
	await writeSessionCookie(cookies, url, sessions, answer.session, now, config.safeAppOrigins.length > 0);
	return json(answer.body, { status: answer.status, headers: answer.headers });
};
