// @ts-check
// Creates the embedded database's data folder (PGlite's initdb) and exits. scripts/start.js runs it in
// a child process on a first start: initdb needs several times the memory the running server does
// (bench/history/2026-11-22-embedded-default-rss.md), and a process that exits gives all of it back before the
// server starts.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { lockDataFolder } from '../src/lib/server/db/data-folder-lock.js';
import { pgliteOptions } from '../src/lib/server/db/embedded.js';

/** With the server's own options (small shared buffers lower initdb's peak, about 860 → 700 MiB), holding the folder's lock. @param {string} dataDir */
export async function createPglite(dataDir) {
	const lock = lockDataFolder(path.resolve(dataDir));
	try {
		const pg = await PGlite.create(pgliteOptions(dataDir));
		await pg.close();
	} finally {
		lock.release();
	}
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	const dataDir = process.argv[2];
	if (!dataDir) throw new Error('usage: node scripts/create-pglite.js <data folder>');
	await createPglite(dataDir).catch((/** @type {unknown} */ err) => {
		console.error(err instanceof Error ? err.message : String(err));
		process.exit(1);
	});
}
