import type { Server } from 'node:net';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { DatabaseHandle } from './client';
import { dailyBackup, dailyBackups, serveBackups } from './backup.js';
import type { Log } from './log';

/** How often the server looks whether today's backup is due. */
const CHECK_EVERY_MS = 3600 * 1000;

let lastBackupAt: Date | null = null;

/** When the newest daily backup was taken (/healthz's lastBackupAt, the metric portal_last_backup_timestamp_seconds), null: none. */
export const lastBackup = (): Date | null => lastBackupAt;

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

export interface BackupPlan {
	/** Where the daily backups go (BACKUP_DIR, or its default: docs/operating.md "Backups"). */
	folder: string;
	/** How many to keep; 0: none made. */
	keep: number;
	/** The embedded database's folder, whose socket serves `npm run db:backup`; null on a Postgres server. */
	socketFolder: string | null;
	/** The portal's version, in each backup's header. */
	version: string;
	/** FILES_DIR, whose files each backup carries; null when they are in S3. */
	filesDir: string | null;
}

/**
 * Keeps the last `keep` daily backups in `folder`, on either engine, each made and each failure told
 * in a log line; for the embedded database in a folder, also serves `npm run db:backup` on the folder's
 * socket. Returns how to stop both.
 */
export async function startBackups(database: DatabaseHandle, plan: BackupPlan, log: Log): Promise<() => Promise<void>> {
	const folder = path.resolve(plan.folder);
	const [newest] = await dailyBackups(folder);
	if (newest) lastBackupAt = (await stat(newest)).mtime;
	const options = { version: plan.version, filesDir: plan.filesDir };
	const socket: Server | null = plan.socketFolder
		? await serveBackups(database.snapshot, path.resolve(plan.socketFolder), {
				...options,
				onServed: (rows) => log('info', 'Backup sent to db:backup', { rows }),
				onFailed: (err) => log('error', `A backup asked for by db:backup failed: ${messageOf(err)}`)
			})
		: null;
	let running: Promise<void> = Promise.resolve();
	const check = () => {
		const started = Date.now();
		running = dailyBackup(database.snapshot, folder, plan.keep, options).then(
			({ taken, made }) => {
				lastBackupAt = taken;
				if (made)
					log('info', 'Daily backup written', {
						file: made.file,
						bytes: made.bytes,
						rows: made.rows,
						tables: made.tables,
						seconds: Math.round((Date.now() - started) / 100) / 10
					});
			},
			(err: unknown) =>
				log('error', `The daily backup failed: ${messageOf(err)}`, {
					folder,
					code: (err as { code?: unknown })?.code ?? null
				})
		);
	};
	const timer = plan.keep > 0 ? setInterval(check, CHECK_EVERY_MS) : null;
	timer?.unref();
	if (plan.keep > 0) check();
	return async () => {
		if (timer) clearInterval(timer);
		socket?.close();
		await running;
	};
}
