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

/**
 * The answers the app gives without SvelteKit (deploy/node-answers.js, decision 0037), by
 * "METHOD request-target"; offered once, while build/handler.js starts the app (before any request).
 * @type {Map<string, import('./node-answers.js').NodeAnswer>}
 */
let nodeAnswers = new Map();
process.on(NODE_ANSWERS_EVENT, (/** @type {Record<string, import('./node-answers.js').NodeAnswer>} */ answers) => {
	nodeAnswers = new Map(Object.entries(answers));
});

/** Production defaults in seconds: the whole request (headers and body) and its headers must arrive within these. */
export const TIMEOUT_DEFAULTS = Object.freeze({ REQUEST_TIMEOUT: 25, HEADERS_TIMEOUT: 20, KEEP_ALIVE_TIMEOUT: 5 });
/** How often Node looks for requests past their timeout (its own 30 s would let one live up to twice as long). */
export const TIMEOUT_CHECK_INTERVAL_MS = 1000;
/** Written by the build next to this file: prerendered path → its Content-Security-Policy header. */
export const PRERENDERED_POLICIES_FILE = 'prerendered-csp.json';

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

/** The decoded path of a request target, as adapter-node looks up prerendered pages. @param {string} url */
function pathnameOf(url) {
	const pathname = url.replace(/[?#].*$/s, '');
	try {
		return decodeURIComponent(pathname);
	} catch {
		return pathname;
	}
}

/**
 * @typedef {(req: http.IncomingMessage, res: http.ServerResponse, next: () => void) => void} Handler
 * @param {Handler} handler adapter-node's handler (build/handler.js)
 * @param {{ dir: string, env?: NodeJS.ProcessEnv }} options dir: the build folder
 */
export function startPortalServer(handler, { dir, env = process.env }) {
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
	if (env.ORIGIN?.startsWith('https:')) headers.push(['Strict-Transport-Security', HSTS]);
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
			if (stopping) res.setHeader('Connection', 'close');
			const notFound = () => res.writeHead(404).end('Not Found');
			// Only the exact spellings the app offered; every other path, query and method goes to SvelteKit.
			const answer = nodeAnswers.size ? nodeAnswers.get(`${req.method} ${req.url}`) : undefined;
			if (answer) answer(req, res).catch(() => (res.headersSent ? res.destroy() : handler(req, res, notFound)));
			else handler(req, res, notFound);
		}
	);

	const host = env.HOST || '0.0.0.0';
	const onListening = () => {
		const address = server.address();
		const where =
			typeof address === 'string' ? address : `http://${host.includes(':') ? `[${host}]` : host}:${address?.port}`;
		console.log(`Listening on ${where}`);
	};
	if (env.SOCKET_PATH) server.listen(env.SOCKET_PATH, onListening);
	else server.listen(Number(env.PORT || 3000), host, onListening);

	// As adapter-node's own entry: finish open requests, then let the process end.
	const shutdownTimeout = Number(env.SHUTDOWN_TIMEOUT || 30) * 1000;
	/** @param {NodeJS.Signals} signal */
	const stop = (signal) => {
		if (stopping) return;
		stopping = true;
		server.closeIdleConnections();
		server.close(() => process.emit(/** @type {'SIGTERM'} */ ('sveltekit:shutdown'), signal));
		setTimeout(() => server.closeAllConnections(), shutdownTimeout).unref();
	};
	process.on('SIGTERM', stop);
	process.on('SIGINT', stop);
	return server;
}
