import type { Handle, HandleServerError, ServerInit } from '@sveltejs/kit';
import { building } from '$app/environment';
import { env } from '$env/dynamic/private';
import { ConfigError } from '$lib/server/config';
import { SchemaNotMigratedError, isDatabaseUnavailable } from '$lib/server/db/errors';
import { memberFromAddress } from '$lib/server/guards';
import { hiddenAdmin } from '$lib/server/pages';
import { runtime, startRuntime } from '$lib/server/runtime';
import { SESSION_COOKIE } from '$lib/server/session';

export const init: ServerInit = async () => {
	if (building) return;
	let database;
	try {
		({ database } = startRuntime(env));
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
};

export const handle: Handle = async ({ event, resolve }) => {
	event.locals.session = null;
	event.locals.member = null;
	if (!building) {
		const { sessions, config } = runtime();
		const session = await sessions.read(event.cookies.get(SESSION_COOKIE));
		event.locals.session = session;
		if (session?.address) event.locals.member = memberFromAddress(session.address, config.adminAddresses);
	}
	// /admin is hidden from everyone who is not an admin (docs/pages-and-forms.md "Hiding /admin").
	const hidden = hiddenAdmin(event);
	if (hidden) return hidden;
	const response = await resolve(event);
	if (event.url.pathname.startsWith('/api/auth/')) response.headers.set('cache-control', 'no-store');
	return response;
};

export const handleError: HandleServerError = ({ error, status, message }) => {
	if (isDatabaseUnavailable(error)) {
		return { code: 'database_unavailable', message: 'The database is unavailable. Try again in a moment.' };
	}
	if (status >= 500) console.error(error instanceof Error ? (error.stack ?? error.message) : error);
	return { message };
};
