// @ts-check
// How the db:* commands end on a failure: one line in words and exit status 1, never a stack trace.
import { fileErrorInWords } from '../deploy/start-up.js';
import { DataFolderHeldError, DataFolderOpenError } from '../src/lib/server/db/data-folder-lock.js';

/** The SQLSTATE of a database error, looking through the wrappers drizzle adds. @param {unknown} err */
function sqlState(err) {
	for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
		const code = /** @type {{ code?: unknown }} */ (e).code;
		if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
		e = /** @type {{ cause?: unknown }} */ (e).cause;
	}
	return null;
}

/**
 * A failure of a db:* command in one line of words: the database's own reason (never a statement's
 * parameters, never a URL that may hold a password), a file that cannot be read or written.
 * @param {unknown} err
 * @param {string | null} [databaseUrl] the server the command used, for its database's name
 */
export function failureInWords(err, databaseUrl = null) {
	if (err instanceof DataFolderHeldError || err instanceof DataFolderOpenError) return err.message;
	const files = fileErrorInWords(err);
	if (files) return files;
	const state = sqlState(err);
	const name = databaseUrl ? decodeURIComponent(new URL(databaseUrl).pathname.slice(1)) : '';
	if (state === '3D000')
		return `the database "${name}" does not exist on that server: create it first (createdb ${name})`;
	// drizzle's "Failed query: …" names the statement and its parameters; the driver's reason is enough.
	const cause =
		err instanceof Error && err.cause instanceof Error && /^Failed query/.test(err.message) ? err.cause : err;
	const message = cause instanceof Error ? cause.message : String(cause);
	return message.split('\n')[0] ?? message;
}

/**
 * Ends the command: `label` and the failure in one line on stderr, exit status 1.
 * @param {string} label "Backup failed", "Restore failed"
 * @param {string | null} [databaseUrl]
 */
export const endWithFailure =
	(label, databaseUrl = null) =>
	(/** @type {unknown} */ err) => {
		const words = failureInWords(err, databaseUrl);
		console.error(err instanceof DataFolderHeldError ? words : `${label}: ${words}`);
		process.exitCode = 1;
	};
