import { randomUUID } from 'node:crypto';
import type { Handle, RequestEvent } from '@sveltejs/kit';
import pino from 'pino';
import { SIGN_IN_FAILURE_CODES } from '$lib/auth/sign-in-failures';
import { requestDuration, signIns, statusClass } from './metrics';

// Written as soon as no earlier write is in flight: error lines, and the request lines in batches.
const destination = pino.destination({ dest: 1, sync: false });

let lastMs = NaN;
let lastTime = '';
/** pino's ISO time, formatted once per millisecond rather than once per line (a busy server logs several). */
const isoTime = () => {
	const now = Date.now();
	if (now !== lastMs) {
		lastMs = now;
		lastTime = `,"time":"${new Date(now).toISOString()}"`;
	}
	return lastTime;
};

const options: pino.LoggerOptions = {
	base: null,
	timestamp: isoTime,
	formatters: { level: (label) => ({ level: label }) }
};

/**
 * The request lines, gathered into batches of up to 64 KiB (a pipe's buffer, some hundreds of lines),
 * each handed to the destination in one write, or at most a quarter of a second after they were logged
 * when fewer come. Every write call costs a round through libuv's thread pool (a large share of the
 * session check's CPU at one write per line), and sonic-boom's own `minLength` measures its whole
 * growing buffer on every line. The figures: bench/README.md "Figures behind the code".
 */
const BATCH_CHARS = 64 * 1024;
const requestLines = (() => {
	let pending = '';
	const flush = () => {
		if (!pending) return;
		const batch = pending;
		pending = '';
		destination.write(batch);
	};
	setInterval(flush, 250).unref();
	// At exit, the batch and then the destination, synchronously (pino's own exit hook may have run already).
	process.once('exit', () => (flush(), destination.flushSync()));
	return {
		flush,
		write(line: string) {
			pending += line;
			if (pending.length >= BATCH_CHARS) flush();
		}
	};
})();

/**
 * One JSON line per request on stdout (docs/observability.md), and errors. Only the fields below are
 * ever written: no header, cookie, query string, body or configuration value reaches a log line.
 */
export const logger = pino(options, destination);

/**
 * The request line, in the shape pino writes `logger.info({ requestId, method, route, status,
 * durationMs }, 'request')` (a test compares the two), built here because pino's general serializer
 * was a third of the request logging's cost on the session check (bench/history/2026-11-27-bench-share-log-line-seal.md). `requestId` is a
 * UUID or matched FORWARDED_ID, so it needs no escaping.
 */
export function requestLine(requestId: string, method: string, route: string, status: number, durationMs: number) {
	return `{"level":"info"${isoTime()},"requestId":"${requestId}","method":${JSON.stringify(method)},"route":${JSON.stringify(route)},"status":${status},"durationMs":${durationMs},"msg":"request"}\n`;
}

export const REQUEST_ID_HEADER = 'x-request-id';

// A proxy's id (nginx $request_id, a load balancer's) is kept so lines can be joined; anything else is replaced.
const FORWARDED_ID = /^[A-Za-z0-9._-]{8,64}$/;

const SIGN_IN_ROUTE = '/api/auth/verify';
/** The `signIns` counter's outcomes besides `ok`, `rate_limited` and `other` (also the Node server's answer, auth/verify.ts). */
export const SIGN_IN_OUTCOMES: ReadonlySet<string> = new Set<string>([
	...SIGN_IN_FAILURE_CODES,
	'invalid_request',
	'database_unavailable'
]);

/** The id of a request: the proxy's in `forwarded` when it has the right shape, otherwise a new UUID. */
export function requestIdFrom(forwarded: string | null | undefined): string {
	return forwarded && FORWARDED_ID.test(forwarded) ? forwarded : randomUUID();
}

/**
 * Times a request answered `status` into the request histogram by route id and status class, and logs
 * its line; `started` is its performance.now() on arrival.
 */
export function recordRequest(requestId: string, method: string, route: string, status: number, started: number) {
	const seconds = (performance.now() - started) / 1000;
	requestDuration.observe({ method, route, status_class: statusClass(status) }, seconds);
	requestLines.write(requestLine(requestId, method, route, status, Math.round(seconds * 10_000) / 10));
}

/**
 * Wraps every request: gives it an id (also the x-request-id answer header), times it into the
 * request histogram by route id and status class, counts sign-in outcomes, and logs one line.
 */
export const observeRequests: Handle = async ({ event, resolve }) => {
	// An internal fetch (the hidden /admin's 404 page) belongs to the request that made it.
	if (event.isSubRequest) return resolve(event);
	const started = performance.now();
	const requestId = requestIdFrom(event.request.headers.get(REQUEST_ID_HEADER));
	event.locals.requestId = requestId;
	let status = 500;
	try {
		const response = await resolve(event);
		status = response.status;
		response.headers.set(REQUEST_ID_HEADER, requestId);
		if (event.route.id === SIGN_IN_ROUTE && event.request.method === 'POST') {
			signIns.inc({ outcome: await signInOutcome(response) });
		}
		return response;
	} finally {
		recordRequest(requestId, event.request.method, event.route.id ?? 'unmatched', status, started);
	}
};

/** `ok`, or the error code of the verify answer (from a known set: anything else counts as `other`). */
async function signInOutcome(response: Response): Promise<string> {
	if (response.ok) return 'ok';
	if (response.status === 429) return 'rate_limited';
	try {
		const body = (await response.clone().json()) as { error?: { code?: unknown } };
		const code = body.error?.code;
		return typeof code === 'string' && SIGN_IN_OUTCOMES.has(code) ? code : 'other';
	} catch {
		return 'other';
	}
}

/**
 * An unexpected error, logged once with the id of the request it broke (hooks.server.ts handleError);
 * `fault` is its text as faultForLog writes it (a failed query's parameters withheld).
 */
export function logRequestError(event: RequestEvent, fault: string, status: number): void {
	// The request lines logged before it come first.
	requestLines.flush();
	logger.error(
		{ requestId: event.locals.requestId, route: event.route.id ?? 'unmatched', status, fault },
		'request failed'
	);
	logger.flush();
}
