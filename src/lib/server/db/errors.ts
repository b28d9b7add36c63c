/** The server's schema is behind the committed migrations. */
export class SchemaNotMigratedError extends Error {
	constructor() {
		super('The database schema is not migrated: run `npm run db:migrate` with the same DATABASE_URL.');
		this.name = 'SchemaNotMigratedError';
	}
}

// Errors of a connection that could not be made or was lost, as postgres.js and Node report them.
const CONNECTION_CODES = new Set([
	'ECONNREFUSED',
	'ECONNRESET',
	'ETIMEDOUT',
	'EHOSTUNREACH',
	'ENETUNREACH',
	'ENOTFOUND',
	'EAI_AGAIN',
	'EPIPE',
	'CONNECT_TIMEOUT',
	'CONNECTION_CLOSED',
	'CONNECTION_ENDED',
	'CONNECTION_DESTROYED'
]);

// SQLSTATE: class 08 (connection exception), 57P01-57P03 (shutdown, cannot connect now), 53300 (too many connections).
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[123]|53300)$/;

/** True when `err` (or an error it wraps) says the database could not be reached. */
export function isDatabaseUnavailable(err: unknown): boolean {
	for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
		const code = (e as { code?: unknown }).code;
		if (typeof code === 'string' && (CONNECTION_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code))) {
			return true;
		}
		if (e instanceof AggregateError && e.errors.some(isDatabaseUnavailable)) return true;
		e = (e as { cause?: unknown }).cause;
	}
	return false;
}

/** The SQLSTATE of a database error, looking through the wrappers drizzle adds. */
export function sqlState(err: unknown): string | null {
	for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
		const code = (e as { code?: unknown }).code;
		if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
		e = (e as { cause?: unknown }).cause;
	}
	return null;
}
