import { json } from '@sveltejs/kit';
import { DatabaseUnavailableError, SchemaNotMigratedError, isDatabaseUnavailable } from './db/errors';
import { ForbiddenError, UnauthenticatedError } from './guards';

/** Every error body: `{ "error": { "code", "message" } }`. */
export function jsonError(status: number, code: string, message: string, headers?: HeadersInit): Response {
	return json({ error: { code, message } }, { status, headers });
}

/**
 * Maps the errors a lib function may raise to their answers; anything else is rethrown as a fault.
 * Used by +server.ts routes, so that a database outage is a 503, never a crash or a hang.
 */
export function errorResponse(err: unknown, headers?: HeadersInit): Response {
	if (err instanceof UnauthenticatedError || err instanceof ForbiddenError) {
		return jsonError(err.status, err.code, err.message, headers);
	}
	if (err instanceof SchemaNotMigratedError) return jsonError(503, err.code, err.message, headers);
	if (isDatabaseUnavailable(err)) {
		const unavailable = new DatabaseUnavailableError();
		return jsonError(503, unavailable.code, unavailable.message, { ...headers, 'Retry-After': '5' });
	}
	throw err;
}
