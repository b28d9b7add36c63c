import { statfs } from 'node:fs/promises';
import path from 'node:path';
import type { DatabaseHandle } from './client';
import { sqlState } from './errors';
import type { Log } from './log';

/** Below this much free space a start that fails is put down to a full disk. */
const NEARLY_FULL_BYTES = 64 * 1024 * 1024;
/** SIGTERM's promise (docs/operating.md): the process ends within 10 s of it even if closing hangs. */
const CLOSE_LIMIT_MS = 4000;

/** Free bytes on the file system holding `folder` (or its nearest existing parent), null when unknown. */
export async function freeBytes(folder: string): Promise<number | null> {
	for (let dir = path.resolve(folder); ; dir = path.dirname(dir)) {
		try {
			const stats = await statfs(dir);
			return stats.bavail * stats.bsize;
		} catch {
			if (dir === path.dirname(dir)) return null;
		}
	}
}

/**
 * What to print when the embedded database cannot start, in words rather than PGlite's bare
 * `Aborted()`; null for a fault that is not the folder's (a Postgres server away: requests answer 503).
 */
export async function startFailureInWords(
	err: unknown,
	dataDir: string,
	kind: DatabaseHandle['kind']
): Promise<string | null> {
	if (kind !== 'pglite' || dataDir.startsWith('memory://')) return null;
	const free = await freeBytes(dataDir);
	const reason = err instanceof Error ? err.message : String(err);
	if (sqlState(err)?.startsWith('53') || (free !== null && free < NEARLY_FULL_BYTES)) {
		const left = free === null ? '' : ` (${Math.floor(free / 1024 / 1024)} MiB free)`;
		return `The embedded database in ${dataDir} cannot start: the disk holding it is full${left}. Free some space and start again; nothing was lost.`;
	}
	return `The embedded database in ${dataDir} cannot start: ${reason}. Restore the latest backup into an empty folder if it keeps failing (docs/operating.md, "Restore").`;
}

/**
 * Stops the background work (outbox worker, backups), closes the database (a checkpoint, the lock
 * released), and ends the process: with status 0, or the status already chosen (1 after a start that
 * could not listen).
 */
export async function shutDown(database: DatabaseHandle, stops: (() => Promise<void>)[], log: Log): Promise<void> {
	const status = Number(process.exitCode ?? 0);
	// Whatever keeps the event loop busy (a driver's timer), the process ends once the database is closed.
	const exit = (code: number) => setTimeout(() => process.exit(code), 100);
	const limit = setTimeout(() => {
		log('error', 'The database did not close in time; exiting.');
		process.exit(1);
	}, CLOSE_LIMIT_MS);
	limit.unref();
	try {
		await Promise.all(stops.map((stop) => stop()));
		await database.close();
		log('info', 'The database is closed; the server stops.', { status });
		exit(status).unref();
	} catch (err) {
		log('error', `Closing the database failed: ${err instanceof Error ? err.message : String(err)}`);
		exit(1);
	}
}
