// Migrate once, copy many times, for PGlite: one database migrated the way the server migrates itself
// (createDb + ready()), dumped (PGlite's dumpDataDir) into a file named by the hash of the migrations
// (tests/helpers/schema-hash.js) under the system's temporary folder, and loaded by every later test
// database instead of running initdb and the migrations again (several times faster). A changed
// migration changes the hash, so a stale copy is never loaded.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { createDb } from '../../src/lib/server/db/client';
import { schemaHash } from './schema-hash.js';

export const TEMPLATE_DIR = path.join(tmpdir(), 'portal-test-templates');

/** Where the migrated dump of the current migrations lives. */
export function pgliteTemplatePath(): string {
	return path.join(TEMPLATE_DIR, `pglite-${schemaHash()}.tar`);
}

let memo: Promise<Blob> | null = null;

/** The migrated PGlite database as a dump, made once (for every process and later run) and read once per process. */
export function pgliteTemplate(): Promise<Blob> {
	memo ??= loadOrMake().catch((err: unknown) => {
		memo = null;
		throw err;
	});
	return memo;
}

async function loadOrMake(): Promise<Blob> {
	const file = pgliteTemplatePath();
	if (existsSync(file)) return new Blob([readFileSync(file)]);
	const handle = createDb({ databaseUrl: null, pgliteDataDir: 'memory://' });
	try {
		await handle.ready();
		const client = (handle.db as unknown as { $client: PGlite }).$client;
		const dump = await client.dumpDataDir('none');
		mkdirSync(TEMPLATE_DIR, { recursive: true });
		// Written under another name and renamed: a process reading it never sees half a file.
		const partial = `${file}.${process.pid}.partial`;
		writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
		renameSync(partial, file);
		return dump;
	} finally {
		await handle.close();
	}
}
