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

// SQLSTATE: class 08 (connection exception), 57P01-57P03 (shutdown, cannot connect now), class 53
// (insufficient resources: 53100 disk full, 53200 out of memory, 53300 too many connections).
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[123]|53...)$/;

/** True when `err` is SQLSTATE class 53: the database is out of disk, memory or connections. */
export const isOutOfResources = (err: unknown): boolean => sqlState(err)?.startsWith('53') ?? false;

/**
 * True when `err` is SQLSTATE 57014 (query_canceled): on a Postgres server, a statement that ran past the
 * connection's `statement_timeout` (10 s, db/client.ts). The database is up but did not answer in time:
 * a request gets the outage's 503, not a 500 (platform/runtime.ts withDatabase).
 */
export const isStatementTimeout = (err: unknown): boolean => sqlState(err) === '57014';

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

/** A failed statement as drizzle wraps it: its SQL text, its parameters and the driver's error. */
interface FailedQuery {
	query: string;
	params: unknown[];
	cause?: unknown;
}
const isFailedQuery = (e: unknown): e is FailedQuery =>
	!!e &&
	typeof e === 'object' &&
	typeof (e as FailedQuery).query === 'string' &&
	Array.isArray((e as FailedQuery).params);

/**
 * What the server log says of a fault: for a failed statement its SQL and the database's reason with
 * its SQLSTATE, never the parameters (drizzle's own message lists them, and they hold what people typed)
 * nor a value the database quotes back at the end of its reason (`invalid input syntax for type uuid: "…"`).
 */
export function faultForLog(err: unknown): string {
	if (!(err instanceof Error)) return String(err);
	const frames = (err.stack ?? '').split('\n').filter((line) => /^\s+at /.test(line));
	if (!isFailedQuery(err)) return err.stack ?? err.message;
	const cause = err.cause instanceof Error ? err.cause : null;
	const reason = cause ? cause.message.replace(/: ".*"$/s, ': (value withheld)') : 'no reason given';
	const state = sqlState(err);
	return [
		`Failed query: ${err.query}`,
		`  database: ${reason}${state ? ` (SQLSTATE ${state})` : ''} [${err.params.length} parameters withheld]`,
		...frames
	].join('\n');
}
