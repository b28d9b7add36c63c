import path from 'node:path';
import type { Server } from 'node:net';
import type { DatabaseHandle } from './client';
import { dailyBackup, dailyBackups, serveBackups } from './backup.js';
import { stat } from 'node:fs/promises';

/** How often the server looks whether today's backup is due. */
const CHECK_EVERY_MS = 3600 * 1000;

let lastBackupAt: Date | null = null;

/** When the newest daily backup of the embedded folder was taken (/healthz's lastBackupAt), null: none. */
export const lastBackup = (): Date | null => lastBackupAt;

/**
 * For the embedded database in a folder: serves `npm run db:backup` on the folder's socket and keeps
 * the last `keep` daily backups in <folder>/backups (none when keep is 0). Returns how to stop both.
 */
export async function startBackups(
	database: DatabaseHandle,
	dataDir: string,
	keep: number
): Promise<() => Promise<void>> {
	const folder = path.resolve(dataDir);
	const [newest] = await dailyBackups(folder);
	if (newest) lastBackupAt = (await stat(newest)).mtime;
	const socket: Server = await serveBackups(database.snapshot, folder);
	let running: Promise<void> = Promise.resolve();
	const check = () => {
		running = dailyBackup(database.snapshot, folder, keep).then(
			(taken) => void (lastBackupAt = taken),
			(err: unknown) => console.error(`The daily backup failed: ${err instanceof Error ? err.message : String(err)}`)
		);
	};
	const timer = keep > 0 ? setInterval(check, CHECK_EVERY_MS) : null;
	timer?.unref();
	if (keep > 0) check();
	return async () => {
		if (timer) clearInterval(timer);
		socket.close();
		await running;
	};
}
