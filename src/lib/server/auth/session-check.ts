import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse } from 'cookie';
import { getAddress } from 'viem';
import type { SignedInMember } from './guards';
import { memberOf } from './member-of';
import { SESSION_COOKIE } from './session';
import { runtime } from '../platform/runtime';
import { REQUEST_ID_HEADER, recordRequest, requestIdFrom } from '../platform/observability';

export const SESSION_CHECK_ROUTE = '/api/auth/me';

/**
 * The answer of GET /api/auth/me: the caller's own address (checksummed) and admin flag; a missing or
 * invalid session reads as signed out. A reviewer who is not an admin also gets `isReviewer: true` (the
 * header's Review link, decision 0028); everyone else gets the contract's two fields exactly.
 */
export function sessionCheckBody(member: SignedInMember | null) {
	const body = { address: member ? getAddress(member.address) : null, isAdmin: member?.isAdmin ?? false };
	return member?.isReviewer && !member.isAdmin ? { ...body, isReviewer: true as const } : body;
}

/**
 * The session a cookie carries and the member it signs in: the one read both paths make, SvelteKit's
 * (src/hooks.server.ts, for event.locals) and the Node server's session check below.
 */
export async function sessionAndMember(cookie: string | undefined) {
	const session = await runtime().sessions.read(cookie);
	return { session, member: session?.address ? await memberOf(session.address) : null };
}

/**
 * GET /api/auth/me as the portal's Node server answers it without SvelteKit (decision 0037): the same
 * session read, body, headers, request id, metrics and log line as the SvelteKit route
 * (src/routes/api/auth/me/+server.ts) and the handles give it, at a fraction of their cost; the
 * server's own headers (deploy/server.js) are already set. Tests compare the two answer for answer.
 */
export async function answerSessionCheck(req: IncomingMessage, res: ServerResponse): Promise<void> {
	const started = performance.now();
	const forwarded = req.headers[REQUEST_ID_HEADER];
	const requestId = requestIdFrom(typeof forwarded === 'string' ? forwarded : undefined);
	// As SvelteKit's event.cookies.get reads it: the same parser, the first cookie of that name.
	const cookie = req.headers.cookie;
	const { member } = await sessionAndMember(cookie ? parse(cookie)[SESSION_COOKIE] : undefined);
	const body = JSON.stringify(sessionCheckBody(member));
	res.writeHead(200, {
		'cache-control': 'no-store',
		'content-length': Buffer.byteLength(body),
		'content-type': 'application/json',
		[REQUEST_ID_HEADER]: requestId
	});
	res.end(body);
	recordRequest(requestId, 'GET', SESSION_CHECK_ROUTE, 200, started);
}
