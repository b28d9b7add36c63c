import type { Handle, HandleServerError, ServerInit } from '@sveltejs/kit';
import { sequence } from '@sveltejs/kit/hooks';
import { building } from '$app/environment';
import { env } from '$env/dynamic/private';
import { env as publicEnv } from '$env/dynamic/public';
import { ConfigError } from '$lib/server/platform/config';
import { SchemaNotMigratedError, isDatabaseUnavailable } from '$lib/server/db/errors';
import { adminNotFound, isAdminRoute, memberFromAddress } from '$lib/server/auth/guards';
import { runtime, startRuntime } from '$lib/server/platform/runtime';
import {
	HSTS,
	PRIVATE_NO_STORE,
	SAFE_APP_MANIFEST_HEADERS,
	SAFE_APP_MANIFEST_PATH,
	STATIC_HEADERS,
	servedPolicy,
	withFrameAncestors
} from '../deploy/security-headers.js';
import { SESSION_COOKIE } from '$lib/server/auth/session';
import { defaultWorkerOptions, startWebhookWorker } from '$lib/server/webhooks/worker';
import { logRequestError, observeRequests } from '$lib/server/platform/observability';

export const init: ServerInit = async () => {
	if (building) return;
	let database, config, webhookEndpoints;
	try {
		// $env/dynamic/private leaves out the PUBLIC_ variables; they are validated with the rest.
		({ database, config, webhookEndpoints } = await startRuntime({ ...publicEnv, ...env }));
	} catch (err) {
		if (err instanceof ConfigError) {
			console.error(err.message);
			process.exit(1);
		}
		throw err;
	}
	try {
		await database.ready();
	} catch (err) {
		if (err instanceof SchemaNotMigratedError) {
			console.error(err.message);
			process.exit(1);
		}
		if (!isDatabaseUnavailable(err)) throw err;
		// Not fatal: requests that need the database answer 503 until it is back.
		console.warn('The database is unreachable at start; retrying on each request that needs it.');
	}
	if (config.webhooks) {
		// Outside every request; adapter-node emits sveltekit:shutdown once the server has closed.
		const { secret, timeoutSeconds } = config.webhooks;
		const worker = startWebhookWorker(database, webhookEndpoints, secret, defaultWorkerOptions(timeoutSeconds));
		process.once('sveltekit:shutdown', () => void worker.stop());
	}
};

/** Unseals the session cookie once: event.locals.session and the member it signs in. */
const readSession: Handle = async ({ event, resolve }) => {
	event.locals.session = null;
	event.locals.member = null;
	if (!building) {
		const { sessions, config } = runtime();
		const session = await sessions.read(event.cookies.get(SESSION_COOKIE));
		event.locals.session = session;
		if (session?.address) event.locals.member = memberFromAddress(session.address, config.adminAddresses);
	}
	return resolve(event);
};

/**
 * Everything under /admin (any method or content type, __data.json and enhanced forms too) answers
 * anyone who is not an admin with the 404 of an unknown path (the specification's rule for /admin),
 * found by the resolved route so that every spelling of the path is caught (`/%61dmin`, `/admin/` is
 * rerouted in hooks.ts); the routes' requireAdmin is the second line.
 */
const hideAdmin: Handle = ({ event, resolve }) =>
	!event.isSubRequest && !event.locals.member?.isAdmin && isAdminRoute(event.route.id)
		? adminNotFound(event)
		: resolve(event);

/** Answers of /api/auth/* are never cached (the HTTP contract's Cache-Control: no-store). */
const noStoreAuth: Handle = async ({ event, resolve }) => {
	const response = await resolve(event);
	if (event.url.pathname.startsWith('/api/auth/')) response.headers.set('cache-control', 'no-store');
	return response;
};

/**
 * The security headers of every answer (docs/security.md; the policy itself comes from kit.csp), and
 * no cache may store a page rendered per request or its __data.json. Outermost, so the hidden /admin
 * gets exactly what an unknown path gets.
 */
const securityHeaders: Handle = async ({ event, resolve }) => {
	const response = await resolve(event);
	for (const [name, value] of Object.entries(STATIC_HEADERS)) response.headers.set(name, value);
	const policy = response.headers.get('content-security-policy');
	if (policy && !building) {
		const { config } = runtime();
		// kit.csp allows WalletConnect's hosts; keep them only when this configuration offers it.
		const served = servedPolicy(policy, { walletConnect: config.walletConnectProjectId !== null });
		// SAFE_APP_ORIGINS (decision 0022): kit.csp says frame-ancestors 'none'; open it to those origins.
		response.headers.set('content-security-policy', withFrameAncestors(served, config.safeAppOrigins));
	}
	if (event.url.pathname === SAFE_APP_MANIFEST_PATH)
		for (const [name, value] of Object.entries(SAFE_APP_MANIFEST_HEADERS)) response.headers.set(name, value);
	if (event.url.protocol === 'https:') response.headers.set('strict-transport-security', HSTS);
	const html = response.headers.get('content-type')?.startsWith('text/html');
	if ((html || event.isDataRequest) && !response.headers.has('cache-control')) {
		response.headers.set('cache-control', PRIVATE_NO_STORE);
	}
	return response;
};

export const handle = sequence(observeRequests, securityHeaders, readSession, hideAdmin, noStoreAuth);

export const handleError: HandleServerError = ({ error, event, status, message }) => {
	if (status >= 500) logRequestError(event, error, status);
	return { message };
};
