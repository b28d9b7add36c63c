import type { IncomingMessage, ServerResponse } from 'node:http';
import { isHttpError } from '@sveltejs/kit';
import { parse } from 'cookie';
import * as v from 'valibot';
import { upsertMember } from './members';
import { memberOf } from './member-of';
import { SESSION_COOKIE, sessionSetCookie, type SessionData } from './session';
import { signInPolicy, verifySignIn } from './siwe';
import { appLimit } from '../platform/body-limit';
import { faultForLog } from '../db/errors';
import { signIns } from '../platform/metrics';
import { REQUEST_ID_HEADER, SIGN_IN_OUTCOMES, logger, recordRequest, requestIdFrom } from '../platform/observability';
import { runtime, withDatabase } from '../platform/runtime';

export const VERIFY_ROUTE = '/api/auth/verify';
export const MAX_VERIFY_BODY_BYTES = 8 * 1024;

const VerifyBody = v.object({
	message: v.pipe(v.string(), v.nonEmpty()),
	signature: v.pipe(v.string(), v.regex(/^0x(?:[0-9a-fA-F]{2})+$/, 'signature must be 0x followed by hex bytes'))
});

/** What POST /api/auth/verify answers: status, JSON body, extra headers, and the session its cookie then holds (null: cleared). */
export interface VerifyAnswer {
	status: number;
	body: unknown;
	headers: Record<string, string>;
	session: SessionData | null;
	/** The sign-in outcome the `signIns` counter counts: `ok` or the error code. */
	outcome: string;
}

const failure = (status: number, code: string, message: string, session: SessionData | null, headers = {}) => ({
	status,
	body: { error: { code, message } },
	headers,
	session,
	outcome: code
});

/**
 * POST /api/auth/verify for the session the cookie carried (`issued`) and the body's text (null: over
 * MAX_VERIFY_BODY_BYTES or not UTF-8): verifies the signed message; on success signs the address in and
 * upserts the member. Every answer drops the nonce; a session already signed in stays as it was. Both
 * ways in answer with it: the SvelteKit route and the Node server's answerVerify (decision 0053).
 * A fault that is not the database's 503 is thrown.
 */
export async function verifyAnswer(
	issued: SessionData | null,
	text: string | null,
	now: number
): Promise<VerifyAnswer> {
	const { config } = runtime();
	const kept = issued?.address ? { address: issued.address, expiresAt: issued.expiresAt } : null;
	const invalid = (message: string) => failure(400, 'invalid_request', message, kept);
	if (text === null) return invalid(`The body must be JSON of at most ${MAX_VERIFY_BODY_BYTES} bytes.`);
	let raw: unknown;
	try {
		raw = JSON.parse(text);
	} catch {
		return invalid('The body is not JSON.');
	}
	const body = v.safeParse(VerifyBody, raw);
	if (!body.success) return invalid('The body must be { "message": string, "signature": "0x…" }.');

	const result = await verifySignIn(
		{ message: body.output.message, signature: body.output.signature as `0x${string}`, expectedNonce: issued?.nonce },
		signInPolicy(config),
		now
	);
	if (!result.ok) return failure(401, result.code, result.message, kept);

	const signedIn = result.value.address;
	const address = signedIn.toLowerCase();
	try {
		await withDatabase((db) => upsertMember(db, address));
	} catch (err) {
		if (!isHttpError(err)) throw err;
		const retry: Record<string, string> = err.status === 503 ? { 'retry-after': '5' } : {};
		return failure(err.status, err.body.code ?? 'error', err.body.message, kept, retry);
	}
	// Owners and the team's admins (issue 59), as every later request resolves them.
	return {
		status: 200,
		body: { address: signedIn, isAdmin: (await memberOf(address)).isAdmin },
		headers: {},
		session: { address, expiresAt: now + config.sessionTtlSeconds * 1000 },
		outcome: 'ok'
	};
}

/** The `signIns` label of an answer, as observeRequests reads it from the SvelteKit route's body. */
export const signInOutcome = (answer: Pick<VerifyAnswer, 'status' | 'outcome'>) =>
	answer.status === 200 ? 'ok' : SIGN_IN_OUTCOMES.has(answer.outcome) ? answer.outcome : 'other';

/** The body's media type the Node server takes: JSON, as every client sends it. */
const JSON_TYPE = /^application\/json(?:\s*;\s*charset="?utf-8"?)?$/i;
const bodyLimit = () => Math.min(MAX_VERIFY_BODY_BYTES, appLimit());

/** The protocol of every request the Node server answers itself (it does only with ORIGIN set). */
let originProtocol: string | undefined;
const protocolOfOrigin = () => (originProtocol ??= new URL(process.env.ORIGIN?.trim() ?? 'http://localhost').protocol);

/**
 * POST /api/auth/verify as the portal's Node server answers it without SvelteKit (decision 0053): only a
 * JSON body of a declared length within the limits (Content-Length, no Transfer-Encoding), whose
 * answer depends on nothing SvelteKit's handles add; anything else is left to SvelteKit before a byte is
 * read (`false`). Then verifyAnswer, and the route's cookie, headers, request id, sign-in counter,
 * histogram sample and log line. Tests compare the two answer for answer.
 */
export async function answerVerify(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
	const started = performance.now();
	const { headers } = req;
	const length = headers['content-length'];
	if (
		!JSON_TYPE.test(headers['content-type'] ?? '') ||
		headers['transfer-encoding'] !== undefined ||
		length === undefined ||
		!/^\d{1,5}$/.test(length) ||
		Number(length) > bodyLimit()
	)
		return false;
	const forwarded = headers[REQUEST_ID_HEADER];
	const requestId = requestIdFrom(typeof forwarded === 'string' ? forwarded : undefined);
	const chunks: Buffer[] = [];
	try {
		for await (const chunk of req) chunks.push(chunk as Buffer);
	} catch {
		// The client went away in the middle of its body: nobody to answer.
		res.destroy();
		return true;
	}
	let text: string | null;
	try {
		text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
	} catch {
		text = null;
	}
	const { sessions, config } = runtime();
	const now = Date.now();
	const cookie = headers.cookie;
	let status: number;
	try {
		const issued = await sessions.read(cookie ? parse(cookie)[SESSION_COOKIE] : undefined, now);
		const answer = await verifyAnswer(issued, text, now);
		status = answer.status;
		const setCookie = await sessionSetCookie(sessions, answer.session, now, {
			protocol: protocolOfOrigin(),
			framed: config.safeAppOrigins.length > 0
		});
		const body = JSON.stringify(answer.body);
		res.writeHead(status, {
			...answer.headers,
			'cache-control': 'no-store',
			'content-length': Buffer.byteLength(body),
			'content-type': 'application/json',
			'set-cookie': setCookie,
			[REQUEST_ID_HEADER]: requestId
		});
		res.end(body);
		signIns.inc({ outcome: signInOutcome(answer) });
	} catch (err) {
		status = 500;
		// A fault: logged once with the request id, as handleError logs SvelteKit's, and its 500.
		logger.error({ requestId, route: VERIFY_ROUTE, status, fault: faultForLog(err) }, 'request failed');
		const body = JSON.stringify({ message: 'Internal Error' });
		if (!res.headersSent)
			res.writeHead(500, {
				'cache-control': 'no-store',
				'content-length': Buffer.byteLength(body),
				'content-type': 'application/json',
				[REQUEST_ID_HEADER]: requestId
			});
		res.end(body);
		signIns.inc({ outcome: 'other' });
	}
	recordRequest(requestId, 'POST', VERIFY_ROUTE, status, started);
	return true;
}
