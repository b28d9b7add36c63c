import { json } from '@sveltejs/kit';
import * as v from 'valibot';
import { jsonError, jsonErrorFrom, readLimitedText } from '$lib/server/platform/http';
import { upsertMember } from '$lib/server/auth/members';
import { runtime, withDatabase } from '$lib/server/platform/runtime';
import { writeSessionCookie } from '$lib/server/auth/session';
import { memberOf } from '$lib/server/auth/member-of';
import { signInPolicy, verifySignIn } from '$lib/server/auth/siwe';
import type { RequestHandler } from './$types';

const MAX_BODY_BYTES = 8 * 1024;

const VerifyBody = v.object({
	message: v.pipe(v.string(), v.nonEmpty()),
	signature: v.pipe(v.string(), v.regex(/^0x(?:[0-9a-fA-F]{2})+$/, 'signature must be 0x followed by hex bytes'))
});

/** Verifies a signed message; on success signs the address in and upserts the member. */
export const POST: RequestHandler = async ({ request, locals, cookies, url }) => {
	const { config, sessions } = runtime();
	const now = Date.now();
	const issued = locals.session;
	// Every answer drops the nonce; a session already signed in stays as it was.
	const kept = issued?.address ? { address: issued.address, expiresAt: issued.expiresAt } : null;
	const framed = config.safeAppOrigins.length > 0;
	await writeSessionCookie(cookies, url, sessions, kept, now, framed);

	const text = await readLimitedText(request, MAX_BODY_BYTES);
	if (text === null)
		return jsonError(400, 'invalid_request', `The body must be JSON of at most ${MAX_BODY_BYTES} bytes.`);
	let raw: unknown;
	try {
		raw = JSON.parse(text);
	} catch {
		return jsonError(400, 'invalid_request', 'The body is not JSON.');
	}
	const body = v.safeParse(VerifyBody, raw);
	if (!body.success) {
		return jsonError(400, 'invalid_request', 'The body must be { "message": string, "signature": "0x…" }.');
	}

	const result = await verifySignIn(
		{ message: body.output.message, signature: body.output.signature as `0x${string}`, expectedNonce: issued?.nonce },
		signInPolicy(config),
		now
	);
	if (!result.ok) return jsonError(401, result.code, result.message);

	const signedIn = result.value.address;
	const address = signedIn.toLowerCase();
	try {
		await withDatabase((db) => upsertMember(db, address));
	} catch (err) {
		return jsonErrorFrom(err);
	}
	const session = { address, expiresAt: now + config.sessionTtlSeconds * 1000 };
	await writeSessionCookie(cookies, url, sessions, session, now, framed);
	// Owners and the team's admins (issue 59), as every later request resolves them.
	return json({ address: signedIn, isAdmin: (await memberOf(address)).isAdmin });
};
