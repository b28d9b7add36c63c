import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse, serialize } from 'cookie';
import { NONCE_TTL_SECONDS, SESSION_COOKIE, sessionCookieOptions, type SessionData } from './session';
import { createNonce } from './siwe';
import { runtime } from '../platform/runtime';
import { REQUEST_ID_HEADER, recordRequest, requestIdFrom } from '../platform/observability';

export const NONCE_ROUTE = '/api/auth/nonce';

/**
 * The session a new nonce is issued into: a signed-in session keeps its address and expiry, unless it
 * would end before the nonce could be used; anything else becomes a nonce-only session.
 */
export function nonceSession(current: SessionData | null, nonce: string, now: number): SessionData {
	return current?.address && current.expiresAt - now >= NONCE_TTL_SECONDS * 1000
		? { address: current.address, nonce, expiresAt: current.expiresAt }
		: { nonce, expiresAt: now + NONCE_TTL_SECONDS * 1000 };
}

/**
 * The protocol of every request the Node server answers itself: it does only with ORIGIN set, and
 * SvelteKit then builds each request's URL from it (deploy/server.js), as the route's `url` is.
 */
let originProtocol: string | undefined;
const protocolOfOrigin = () => (originProtocol ??= new URL(process.env.ORIGIN?.trim() ?? 'http://localhost').protocol);

/**
 * GET /api/auth/nonce as the portal's Node server answers it without SvelteKit (decision 0053, as 0037
 * answers the session check): the same session read, nonce, sealed cookie (serialized as SvelteKit's
 * `cookies.set` does, with the `cookie` package and the same options), body, headers, request id,
 * metrics and log line as the SvelteKit route (src/routes/api/auth/nonce/+server.ts) and the handles
 * give it. It touches no database. Tests compare the two answer for answer.
 */
export async function answerNonce(req: IncomingMessage, res: ServerResponse): Promise<void> {
	const started = performance.now();
	const forwarded = req.headers[REQUEST_ID_HEADER];
	const requestId = requestIdFrom(typeof forwarded === 'string' ? forwarded : undefined);
	const { sessions, config } = runtime();
	const header = req.headers.cookie;
	const now = Date.now();
	const current = await sessions.read(header ? parse(header)[SESSION_COOKIE] : undefined, now);
	const nonce = createNonce();
	const session = nonceSession(current, nonce, now);
	const maxAge = Math.floor((session.expiresAt - now) / 1000);
	const framed = config.safeAppOrigins.length > 0;
	const options = sessionCookieOptions({ protocol: protocolOfOrigin() }, maxAge, framed);
	const cookie = serialize(SESSION_COOKIE, await sessions.seal(session), options);
	const body = JSON.stringify({ nonce });
	res.writeHead(200, {
		'cache-control': 'no-store',
		'content-length': Buffer.byteLength(body),
		'content-type': 'application/json',
		'set-cookie': cookie,
		[REQUEST_ID_HEADER]: requestId
	});
	res.end(body);
	recordRequest(requestId, 'GET', NONCE_ROUTE, 200, started);
}
