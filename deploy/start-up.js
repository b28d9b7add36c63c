// @ts-check
// What every way of starting the portal does first (build/index.js, `npm start`, the db:* scripts):
// an empty variable is an unset one, and the server's own lines are JSON like its request lines
// (docs/observability.md, "Logs"). The build copies this file into build/ beside server.js.
import { writeSync } from 'node:fs';
import process from 'node:process';

/**
 * Removes every variable whose value is empty, so that `KEY=` (a line of .env.example copied as is,
 * an EnvironmentFile, the shell) means unset everywhere: the portal's defaults apply, and adapter-node,
 * which reads BODY_SIZE_LIMIT and others itself, never takes an empty limit for 0 (every POST 413).
 * @param {NodeJS.ProcessEnv} [env]
 */
export function unsetEmptyVariables(env = process.env) {
	for (const [name, value] of Object.entries(env)) if (value === '') delete env[name];
}

/** @typedef {'info' | 'warn' | 'error' | 'fatal'} Level */

/**
 * One log line as pino writes the request lines: `{"level","time",…fields,"msg"}`, written at once
 * (synchronously: a line before an exit is never lost).
 * @param {Level} level
 * @param {string} msg
 * @param {Record<string, unknown>} [fields]
 */
export function logLine(level, msg, fields = {}) {
	const line = JSON.stringify({ level, time: new Date().toISOString(), ...fields, msg }) + '\n';
	try {
		writeSync(level === 'fatal' ? 2 : 1, line);
	} catch {
		// A closed stdout or stderr: nothing to tell.
	}
}

/**
 * A rejected promise that nothing handles (background work outside every request: a delivery, a
 * timer's task) is logged, and the server goes on serving. Node's default ends the process, and one
 * row the outbox cannot send would then end it again at every start (issue 54). The line names the
 * failure by its code or class and where it was thrown, never its message (it may carry what it was
 * given: a key, an address, a URL with a token).
 * @param {NodeJS.Process} [proc]
 */
export function surviveUnhandledRejections(proc = process) {
	proc.on('unhandledRejection', (reason) => {
		logLine(
			'error',
			`A background task failed and nothing handled it; the server goes on: ${rejectionInWords(reason)}`,
			{
				event: 'unhandledRejection'
			}
		);
	});
}

/**
 * @param {unknown} reason
 * @returns {string}
 */
export function rejectionInWords(reason) {
	const code = /** @type {{ code?: unknown } | null} */ (reason)?.code;
	const name = reason instanceof Error ? reason.constructor.name || reason.name : typeof reason;
	const what = typeof code === 'string' && /^[\w.-]{1,64}$/.test(code) ? `${name} ${code}` : name;
	const frame = reason instanceof Error ? reason.stack?.split('\n').find((line) => /^\s+at /.test(line)) : undefined;
	return frame ? `${what} ${frame.trim()}` : what;
}

/**
 * A start that cannot go on: one line in words, then exit status 1 (the exit hooks remove the data
 * folder's lock and socket).
 * @param {string} msg
 * @returns {never}
 */
export function startFailed(msg) {
	logLine('fatal', msg);
	process.exit(1);
}

/**
 * A file system error in words (no space, no permission, missing), naming the file; null for others.
 * @param {unknown} err
 */
export function fileErrorInWords(err) {
	const e = /** @type {NodeJS.ErrnoException} */ (err);
	const where = e?.path ?? 'a file';
	switch (e?.code) {
		case 'ENOSPC':
		case 'EDQUOT':
			return `no space left on the disk holding ${where}: free some space and try again; nothing was lost`;
		case 'EACCES':
		case 'EPERM':
			return `permission denied on ${where}: run it as the user that owns it`;
		case 'ENOENT':
			return `${where} does not exist`;
		case 'EISDIR':
			return `${where} is a folder, not a file`;
		case 'EROFS':
			return `${where} is on a read-only file system`;
		default:
			return null;
	}
}
