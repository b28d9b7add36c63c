// @ts-check
// The portal's Node server (docs/security.md): adapter-node's handler behind node:http, adding the
// security headers that prerendered pages (served from disk, without `handle`) would lack, and
// request timeouts that cut slow clients. The build copies this file into build/ and writes a
// build/index.js that starts it, so `node build/index.js` and `npm start` run it.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import process from 'node:process';
import {
	HSTS,
	SAFE_APP_MANIFEST_HEADERS,
	SAFE_APP_MANIFEST_PATH,
	STATIC_HEADERS,
	parseSafeAppOrigins,
	servedPolicy,
	walletConnectEnabled,
	withFrameAncestors
} from './security-headers.js';
import { NODE_ANSWERS_EVENT } from './node-answers.js';
import { logLine } from './start-up.js';

/** Production defaults in seconds: the whole request (headers and body) and its headers must arrive within these. */
export const TIMEOUT_DEFAULTS = Object.freeze({ REQUEST_TIMEOUT: 25, HEADERS_TIMEOUT: 20, KEEP_ALIVE_TIMEOUT: 5 });
/** How often Node looks for requests past their timeout (its own 30 s would let one live up to twice as long). */
export const TIMEOUT_CHECK_INTERVAL_MS = 1000;
/** Written by the build next to this file: prerendered path → its Content-Security-Policy header. */
export const PRERENDERED_POLICIES_FILE = 'prerendered-csp.json';

// The suffix of SvelteKit's route resolution requests (`/apply/__route.js`).
const ROUTE_RESOLUTION_SUFFIX = '/__route.js';

/** @param {string} file @returns {unknown} */
const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

/**
 * @param {NodeJS.ProcessEnv} env
 * @param {keyof typeof TIMEOUT_DEFAULTS} name
 */
function seconds(env, name) {
	const raw = env[name];
	if (raw === undefined || raw === '') return TIMEOUT_DEFAULTS[name];
	const value = Number(raw);
	if (!Number.isFinite(value) || value <= 0)
		throw new Error(`${name} must be a positive number of seconds, got ${raw}`);
	return value;
}

/** adapter-node's BODY_SIZE_LIMIT: bytes, or with a K, M or G suffix. */
const BYTES = /^\d+[KMG]?$/i;

/**
 * What is wrong with the settings this server and adapter-node read themselves (the app's own are
 * checked by src/lib/server/platform/config.ts), each as "NAME: problem"; checked before anything starts.
 * @param {NodeJS.ProcessEnv} env
 * @returns {string[]}
 */
export function serverSettingsProblems(env) {
	const problems = [];
	if (!env.SOCKET_PATH && env.PORT !== undefined && !(/^\d{1,5}$/.test(env.PORT) && Number(env.PORT) <= 65535))
		problems.push(`PORT: must be a port number from 0 to 65535, got ${JSON.stringify(env.PORT)}`);
	for (const name of /** @type {(keyof typeof TIMEOUT_DEFAULTS)[]} */ (Object.keys(TIMEOUT_DEFAULTS)))
		try {
			seconds(env, name);
		} catch (err) {
			problems.push(err instanceof Error ? err.message.replace(' must', ': must') : String(err));
		}
	const shutdown = env.SHUTDOWN_TIMEOUT;
	if (shutdown !== undefined && !(Number(shutdown) > 0))
		problems.push(`SHUTDOWN_TIMEOUT: must be a positive number of seconds, got ${JSON.stringify(shutdown)}`);
	if (env.BODY_SIZE_LIMIT !== undefined && !BYTES.test(env.BODY_SIZE_LIMIT) && env.BODY_SIZE_LIMIT !== 'Infinity')
		problems.push(
			`BODY_SIZE_LIMIT: must be a number of bytes, with K, M or G for kilo-, mega- or gigabytes (default 512K), got ${JSON.stringify(env.BODY_SIZE_LIMIT)}`
		);
	return problems;
}

/** The whole body of an apply form with its files (issue 58; src/lib/server/platform/body-limit.ts). */
export const UPLOAD_BODY_LIMIT = 25 * 1024 * 1024;

/**
 * adapter-node reads a body up to BODY_SIZE_LIMIT on every route; the apply form's uploads need 25 MiB.
 * So adapter-node is given at least that, and the operator's limit (512K by default) moves to
 * PORTAL_BODY_SIZE_LIMIT, which the app holds every other route to. Call once, before the handler loads.
 * @param {NodeJS.ProcessEnv} env
 */
export function raiseBodyLimitForUploads(env) {
	const own = env.BODY_SIZE_LIMIT ?? '512K';
	env.PORTAL_BODY_SIZE_LIMIT ??= own;
	if (own === 'Infinity') return;
	const match = /^(\d+)([KMG]?)$/i.exec(own);
	const bytes = match
		? Number(match[1]) * ({ '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[(match[2] ?? '').toUpperCase()] ?? 1)
		: 0;
	if (bytes < UPLOAD_BODY_LIMIT) env.BODY_SIZE_LIMIT = String(UPLOAD_BODY_LIMIT);
}

/** Why listening failed, in words. @param {NodeJS.ErrnoException} err @param {string} where */
function listenFailure(err, where) {
	if (err.code === 'EADDRINUSE')
		return `Cannot listen on ${where}: another process is using it. Stop that process or choose another PORT.`;
	if (err.code === 'EACCES')
		return `Cannot listen on ${where}: permission denied (ports below 1024 need privileges; use a port above 1023 behind a proxy).`;
	if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND')
		return `Cannot listen on ${where}: HOST is not an address of this machine.`;
	return `Cannot listen on ${where}: ${err.message}`;
}

/**
 * A file that went missing or cannot be read while it is being sent (sirv pipes a read stream into the
 * answer after writing its headers) would be an unhandled stream error, which ends the process: the
 * answer is cut instead, and the server goes on. Builds never change under a server (scripts/build.js);
 * this holds whatever happens to the files.
 * @param {http.ServerResponse} res
 */
function survivePipedFileErrors(res) {
	res.once('pipe', (source) => {
		source.once('error', (/** @type {NodeJS.ErrnoException} */ err) => {
			logLine('error', 'A file being sent could not be read; the answer was cut', { code: err.code, file: err.path });
			if (!res.headersSent) res.writeHead(404).end('Not Found');
			else res.destroy();
		});
	});
}

/**
 * A request answered before its body was read to the end (a 413 once the body passed its limit) has the
 * rest of its body read and discarded once the answer is sent, as Node does itself for a body nobody
 * started reading. Otherwise the body stays paused where its reader stopped (SvelteKit's stream pauses
 * the request whenever its queue is full, and nobody reads it again), the connection's next request is
 * never read, and a client that keeps connections alive (every browser) waits until REQUEST_TIMEOUT cuts
 * it. Once the answer is sent nobody reads this body any more: the readers' `data` listeners go (their
 * `end` listeners stay, as a finished body expects). REQUEST_TIMEOUT still bounds how long it may take.
 * @param {http.IncomingMessage} req
 * @param {http.ServerResponse} res
 */
function drainUnreadBody(req, res) {
	res.once('finish', () => {
		if (req.complete || req.destroyed) return;
		req.removeAllListeners('data');
		req.resume();
	});
}

/** The decoded path of a request target, as adapter-node looks up prerendered pages. @param {string} url */
function pathnameOf(url) {
	const pathname = url.replace(/[?#].*$/s, '');
	try {
		return decodeURIComponent(pathname);
	} catch {
		return pathname;
	}
}

/** @typedef {import('./node-answers.js').NodeAnswer} NodeAnswer */

/**
 * Starts listening for the answers the app offers the server (deploy/node-answers.js, decision 0037)
 * and returns the map they will be put in, by "METHOD request-target". Call it before importing
 * build/handler.js, whose start-up (the app's `init`) offers them once.
 * @returns {Map<string, NodeAnswer>}
 */
export function listenForNodeAnswers() {
	/** @type {Map<string, NodeAnswer>} */
	const answers = new Map();
	process.once(NODE_ANSWERS_EVENT, (/** @type {Record<string, NodeAnswer>} */ offered) => {
		for (const [key, answer] of Object.entries(offered)) answers.set(key, answer);
	});
	return answers;
}

/**
 * Whether ORIGIN is https, read as adapter-node reads it (trimmed, parsed as a URL); undefined when it
 * is not set, and adapter-node takes each request's origin from its Host and protocol headers instead.
 * @param {NodeJS.ProcessEnv} env
 */
function originIsHttps(env) {
	const origin = env.ORIGIN?.trim();
	if (!origin) return undefined;
	try {
		return new URL(origin).protocol === 'https:';
	} catch {
		return undefined;
	}
}

/**
 * @typedef {(req: http.IncomingMessage, res: http.ServerResponse, next: () => void) => void} Handler
 * @param {Handler} handler adapter-node's handler (build/handler.js)
 * @param {{ dir: string, env?: NodeJS.ProcessEnv, answers?: Map<string, NodeAnswer> }} options dir: the build
 *   folder; answers: what listenForNodeAnswers() gathered (the server gives them only when ORIGIN is set)
 */
export function startPortalServer(handler, { dir, env = process.env, answers = new Map() }) {
	const requestTimeout = seconds(env, 'REQUEST_TIMEOUT') * 1000;
	const headersTimeout = Math.min(seconds(env, 'HEADERS_TIMEOUT') * 1000, requestTimeout);
	const built = /** @type {Record<string, string>} */ (readJson(path.join(dir, PRERENDERED_POLICIES_FILE)));
	// The build's policies allow WalletConnect's hosts; this configuration's header keeps them only when it offers it.
	const walletConnect = walletConnectEnabled(env);
	// SAFE_APP_ORIGINS (decision 0022) opens the prerendered pages to those frames too, as `handle` does for
	// the rendered ones. The app's configuration check (loaded with the handler) already refused a bad value.
	const safeAppOrigins = parseSafeAppOrigins(env.SAFE_APP_ORIGINS);
	const policies = Object.fromEntries(
		Object.entries(built).map(([pathname, policy]) => [
			pathname,
			withFrameAncestors(servedPolicy(policy, { walletConnect }), safeAppOrigins)
		])
	);
	/** @type {[string, string][]} */
	const headers = Object.entries(STATIC_HEADERS);
	// The portal is https when its ORIGIN says so (TLS ends in front of it).
	const https = originIsHttps(env);
	if (https) headers.push(['Strict-Transport-Security', HSTS]);
	// The app's own answers are those SvelteKit gives a request whose URL it builds from ORIGIN: without
	// it, adapter-node reads the Host and protocol headers (and refuses bad ones), so SvelteKit answers all.
	const nodeAnswers = https === undefined ? /** @type {Map<string, NodeAnswer>} */ (new Map()) : answers;
	let stopping = false;

	const server = http.createServer(
		{
			requestTimeout,
			headersTimeout,
			connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
			keepAliveTimeout: seconds(env, 'KEEP_ALIVE_TIMEOUT') * 1000
		},
		(req, res) => {
			for (const [name, value] of headers) res.setHeader(name, value);
			// SvelteKit sets its own policy (with a nonce) on the pages it renders; these are the static ones.
			const pathname = pathnameOf(req.url ?? '/');
			const policy = policies[pathname];
			if (policy) res.setHeader('Content-Security-Policy', policy);
			// Safe{Wallet} reads the Safe App manifest from its own origin (a prerendered file, no `handle`).
			if (pathname === SAFE_APP_MANIFEST_PATH)
				for (const [name, value] of Object.entries(SAFE_APP_MANIFEST_HEADERS)) res.setHeader(name, value);
			// SvelteKit answers which route a path leads to (`router.resolution: 'server'`) before any hook runs, and
			// the answer depends on who asks (a hidden section is no route to a visitor): no cache may keep it.
			if (pathname.endsWith(ROUTE_RESOLUTION_SUFFIX)) res.setHeader('Cache-Control', 'private, no-store');
			if (stopping) res.setHeader('Connection', 'close');
			survivePipedFileErrors(res);
			drainUnreadBody(req, res);
			const notFound = () => res.writeHead(404).end('Not Found');
			// Only the exact spellings the app offered; every other path, query and method goes to SvelteKit.
			const answer = nodeAnswers.size ? nodeAnswers.get(`${req.method} ${req.url}`) : undefined;
			if (!answer) return handler(req, res, notFound);
			// A throw, at once or later, is a rejection: before anything was written SvelteKit answers instead.
			// An answer that declines the request (false, before reading anything) leaves it to SvelteKit too.
			new Promise((resolve) => resolve(answer(req, res))).then(
				(taken) => {
					if (taken === false) handler(req, res, notFound);
				},
				(/** @type {unknown} */ err) => {
					const reason = err instanceof Error ? err.message : String(err);
					console.error(`The server's own answer to ${req.method} ${req.url} failed: ${reason}`);
					if (!res.headersSent) handler(req, res, notFound);
					else if (!res.writableEnded) res.destroy();
				}
			);
		}
	);

	const host = env.HOST || '0.0.0.0';
	const onListening = () => {
		server.off('error', onListenError);
		const address = server.address();
		const where =
			typeof address === 'string' ? address : `http://${host.includes(':') ? `[${host}]` : host}:${address?.port}`;
		logLine('info', `Listening on ${where}`, { url: where });
	};
	const wanted = env.SOCKET_PATH ?? `port ${env.PORT || 3000} of ${host}`;
	/** A port in use or refused: one line, then the app closes its database and the process ends with status 1. */
	const onListenError = (/** @type {NodeJS.ErrnoException} */ err) => {
		logLine('fatal', listenFailure(err, wanted));
		process.exitCode = 1;
		if (!process.emit(/** @type {'SIGTERM'} */ ('sveltekit:shutdown'), /** @type {NodeJS.Signals} */ ('SIGTERM')))
			process.exit(1);
		setTimeout(() => process.exit(1), 5000).unref();
	};
	server.once('error', onListenError);
	if (env.SOCKET_PATH) server.listen(env.SOCKET_PATH, onListening);
	else server.listen(Number(env.PORT || 3000), host, onListening);

	// As adapter-node's own entry: finish open requests, then let the process end (the app closes its
	// database on sveltekit:shutdown). 5 s rather than adapter-node's 30: SIGTERM ends the process within 10 s.
	const shutdownTimeout = Number(env.SHUTDOWN_TIMEOUT || 5) * 1000;
	/** @param {NodeJS.Signals} signal */
	const stop = (signal) => {
		if (stopping) return;
		stopping = true;
		logLine('info', `${signal}: finishing open requests, then closing the database`, { signal });
		server.closeIdleConnections();
		server.close(() => process.emit(/** @type {'SIGTERM'} */ ('sveltekit:shutdown'), signal));
		setTimeout(() => server.closeAllConnections(), shutdownTimeout).unref();
	};
	process.on('SIGTERM', stop);
	process.on('SIGINT', stop);
	return server;
}
