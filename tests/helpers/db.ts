import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { createDb, type Database, type DatabaseHandle } from '../../src/lib/server/db/client';
import { applyMigrations } from '../../src/lib/server/db/migrate';

export type Engine = 'pglite' | 'postgres';

/** PGlite always; the Postgres server too when TEST_DATABASE_URL is set. */
export const engines: Engine[] = process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];

export const serverUrl = process.env.TEST_DATABASE_URL ?? null;

export interface TestDatabase {
	engine: Engine;
	handle: DatabaseHandle;
	db: Database;
	/** The URL of this database on the server (postgres only). */
	url: string | null;
	drop(): Promise<void>;
}

/** A new, empty database of its own for one test file, so tests never see each other's rows. */
export async function createTestDatabase(
	engine: Engine,
	options: { max?: number; migrate?: boolean } = {}
): Promise<TestDatabase> {
	const migrate = options.migrate ?? true;
	if (engine === 'pglite') {
		const handle = createDb({ databaseUrl: null, pgliteDataDir: 'memory://' });
		if (migrate) await handle.ready();
		return { engine, handle, db: handle.db, url: null, drop: () => handle.close() };
	}
	if (!serverUrl) throw new Error('TEST_DATABASE_URL is not set');
	const url = await createServerDatabase();
	const handle = createDb({ databaseUrl: url, pgliteDataDir: '' }, { max: options.max ?? 10 });
	if (migrate) await applyMigrations(handle.db, 'postgres', 'drizzle');
	return {
		engine,
		handle,
		db: handle.db,
		url,
		async drop() {
			await handle.close();
			await dropServerDatabase(url);
		}
	};
}

/** Creates an empty database on the TEST_DATABASE_URL server and returns its URL. */
export async function createServerDatabase(): Promise<string> {
	if (!serverUrl) throw new Error('TEST_DATABASE_URL is not set');
	const name = `portal_test_${randomBytes(6).toString('hex')}`;
	const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
	try {
		await admin.unsafe(`create database ${name}`);
	} finally {
		await admin.end();
	}
	const url = new URL(serverUrl);
	url.pathname = `/${name}`;
	return url.toString();
}

export async function dropServerDatabase(url: string): Promise<void> {
	if (!serverUrl) return;
	const name = new URL(url).pathname.slice(1);
	const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
	try {
		await admin.unsafe(`drop database if exists ${name} with (force)`);
	} finally {
		await admin.end();
	}
}

/** Migrates a server database the way `npm run db:migrate` does. */
export async function migrateServerDatabase(url: string): Promise<void> {
	const handle = createDb({ databaseUrl: url, pgliteDataDir: '' }, { max: 1 });
	try {
		await applyMigrations(handle.db, 'postgres', 'drizzle');
	} finally {
		await handle.close();
	}
}
