// @ts-check
// Creates the embedded database's data folder (PGlite's initdb) and exits. scripts/start.js runs it in
// a child process on a first start: initdb needs several times the memory the running server does
// (bench/README.md, "embedded default RSS"), and a process that exits gives all of it back before the
// server starts.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';

// Small shared buffers for initdb and this process's own start lower its peak (about 860 → 700 MiB);
// the server passes its own settings at every start (src/lib/server/db/client.ts).
const SMALL = ['-c', 'shared_buffers=16MB'];

/** @param {string} dataDir */
export async function createPglite(dataDir) {
	mkdirSync(dataDir, { recursive: true });
	const pg = await PGlite.create(dataDir, {
		initDbStartParams: SMALL,
		startParams: [...PGlite.defaultStartParams, ...SMALL]
	});
	await pg.close();
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	const dataDir = process.argv[2];
	if (!dataDir) throw new Error('usage: node scripts/create-pglite.js <data folder>');
	await createPglite(dataDir);
}
