// @ts-check
// `npm run db:backup [-- --out FILE]`: a consistent plain-SQL backup, gzipped (docs/operating.md,
// "Backups"). On the embedded folder a running server makes it (asked on the folder's socket); with no
// server the folder is locked and read here; with DATABASE_URL the Postgres server is read.
import { createReadStream, createWriteStream, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { createGunzip } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import postgres from 'postgres';
import {
	backupFromServer,
	backupName,
	backupToFile,
	pgliteSnapshot,
	postgresSnapshot
} from '../src/lib/server/db/backup.js';
import { DataFolderHeldError, holderOf, lockDataFolder } from '../src/lib/server/db/data-folder-lock.js';
import { readDumpHeader } from '../src/lib/server/db/dump.js';
import { pgliteOptions } from '../src/lib/server/db/embedded.js';
import { embeddedFolder, loadDotEnv } from './portal-env.js';

/** The first lines and the last line of a gzipped dump, to check it is whole. @param {string} file */
async function headAndTail(file) {
	/** @type {string[]} */
	const head = [];
	let last = '';
	for await (const line of createInterface({ input: createReadStream(file).pipe(createGunzip()) })) {
		if (head.length < 2) head.push(line);
		if (line.trim() !== '') last = line;
	}
	return readDumpHeader([...head, last]);
}

async function main() {
	loadDotEnv();
	const { values } = parseArgs({ options: { out: { type: 'string' } } });
	const out = path.resolve(values.out ?? backupName().replace(/^portal-/, 'member-portal-'));
	const folder = embeddedFolder();
	const started = Date.now();
	if (folder === null) {
		const sql = postgres(/** @type {string} */ (process.env.DATABASE_URL), { max: 1, onnotice: () => {} });
		try {
			await backupToFile(postgresSnapshot(sql), out);
		} finally {
			await sql.end({ timeout: 5 });
		}
	} else if (holderOf(folder) !== null) {
		console.log(`A server holds ${folder}: asking it for the backup ...`);
		const partial = `${out}.partial`;
		try {
			await backupFromServer(folder, createWriteStream(partial, { mode: 0o600 }));
			await headAndTail(partial); // refuses a backup the server did not finish
			renameSync(partial, out);
		} finally {
			rmSync(partial, { force: true });
		}
	} else {
		if (!statSync(path.join(folder, 'PG_VERSION'), { throwIfNoEntry: false }))
			throw new Error(`there is no embedded database in ${folder}`);
		const lock = lockDataFolder(folder);
		const pg = new PGlite(pgliteOptions(folder));
		try {
			await backupToFile(pgliteSnapshot(pg), out);
		} finally {
			await pg.close();
			lock.release();
		}
	}
	const { counts } = await headAndTail(out);
	const rows = Object.values(counts).reduce((a, b) => a + b, 0);
	console.log(
		`Backup written: ${out} (${(statSync(out).size / 1024).toFixed(0)} KiB, ${rows} rows in ${Object.keys(counts).length} tables, ${((Date.now() - started) / 1000).toFixed(1)} s)`
	);
}

main().catch((/** @type {unknown} */ err) => {
	if (err instanceof DataFolderHeldError) console.error(err.message);
	// The driver's message names the problem; the URL (and any password in it) is never printed.
	else console.error(`Backup failed: ${err instanceof Error ? err.message : String(err)}`);
	process.exitCode = 1;
});
