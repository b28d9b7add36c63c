// @ts-check
// `npm run db:backup [-- --out FILE] [--encrypt KEYFILE]`: a consistent plain-SQL backup, gzipped, and
// sealed with AES-256-GCM when asked (docs/operating.md, "Backups"), carrying the files in FILES_DIR
// (none when they are in S3). On the embedded folder a running
// server makes it (asked on the folder's socket); with no server the folder is locked and read here
// (what this writes in the folder stays its owner's, also when run as root); with DATABASE_URL the
// Postgres server is read. Any failure is one line and status 1.
import { createWriteStream, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import postgres from 'postgres';
import {
	backupFromServer,
	backupName,
	backupToFile,
	pgliteSnapshot,
	postgresSnapshot,
	readBackup
} from '../src/lib/server/db/backup.js';
import { readBackupKey } from '../src/lib/server/db/backup-crypt.js';
import { holderOf, lockDataFolder } from '../src/lib/server/db/data-folder-lock.js';
import { pgliteOptions } from '../src/lib/server/db/embedded.js';
import { endWithFailure } from './db-failure.js';
import { giveBack, ownerToKeep } from './folder-owner.js';
import { embeddedFolder, filesFolder, loadDotEnv } from './portal-env.js';
import { portalVersion } from './portal-version.js';

/** The default name, in the working folder (.gitignore leaves these out of git). @param {boolean} encrypted */
export const defaultBackupName = (encrypted) =>
	backupName().replace(/^portal-/, 'member-portal-') + (encrypted ? '.enc' : '');

async function main() {
	loadDotEnv();
	const { values } = parseArgs({ options: { out: { type: 'string' }, encrypt: { type: 'string' } } });
	const key = values.encrypt ? readBackupKey(values.encrypt) : null;
	const out = path.resolve(values.out ?? defaultBackupName(key !== null));
	// The files of `file` answers in FILES_DIR ride along (none when they are in S3); a running server uses its own.
	const options = { version: portalVersion(), key, filesDir: filesFolder() };
	const folder = embeddedFolder();
	const started = Date.now();
	if (folder === null) {
		const sql = postgres(/** @type {string} */ (process.env.DATABASE_URL), { max: 1, onnotice: () => {} });
		try {
			await backupToFile(postgresSnapshot(sql), out, options);
		} finally {
			await sql.end({ timeout: 5 });
		}
	} else if (holderOf(folder) !== null) {
		console.log(`A server holds ${folder}: asking it for the backup ...`);
		const partial = `${out}.partial`;
		try {
			// The server sends it gzipped; sealed here, so that the key never leaves this command.
			await backupFromServer(folder, createWriteStream(partial, { mode: 0o600 }), key);
			await readBackup(partial, key); // refuses a backup the server did not finish
			renameSync(partial, out);
		} finally {
			rmSync(partial, { force: true });
		}
	} else {
		if (!statSync(path.join(folder, 'PG_VERSION'), { throwIfNoEntry: false }))
			throw new Error(`there is no embedded database in ${folder}`);
		const owner = ownerToKeep(folder);
		const lock = lockDataFolder(folder);
		try {
			const pg = new PGlite(pgliteOptions(folder));
			try {
				await backupToFile(pgliteSnapshot(pg), out, options);
			} finally {
				await pg.close();
			}
		} finally {
			lock.release();
			giveBack(folder, owner);
		}
	}
	const { counts, files } = await readBackup(out, key);
	const rows = Object.values(counts).reduce((a, b) => a + b, 0);
	const carried = files.count ? `, ${files.count} files of ${(files.bytes / 1024).toFixed(0)} KiB` : '';
	console.log(
		`Backup written: ${out} (${(statSync(out).size / 1024).toFixed(0)} KiB, ${rows} rows in ${Object.keys(counts).length} tables${carried}, ${((Date.now() - started) / 1000).toFixed(1)} s${key ? ', encrypted' : ''})`
	);
}

// The driver's message names the problem; the URL (and any password in it) is never printed.
main().catch(endWithFailure('Backup failed', process.env.DATABASE_URL ?? null));
