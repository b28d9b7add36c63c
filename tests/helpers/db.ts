import { createDb, type Database, type DatabaseHandle } from '../../src/lib/server/db/client';
import { pgliteTemplate } from './pglite-template';
import { createServerDatabase } from './postgres.js';

export type Engine = 'pglite' | 'postgres';

/** PGlite always; the Postgres server too when TEST_DATABASE_URL is set. */
export const engines: Engine[] = process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];

export const serverUrl = process.env.TEST_DATABASE_URL ?? null;

/** The TEST_DATABASE_URL server, for tests that run only when it is set (`describe.runIf(serverUrl)`). */
export function requireServerUrl(): string {
	if (!serverUrl) throw new Error('TEST_DATABASE_URL is not set');
	return serverUrl;
}

export interface TestDatabase {
	engine: Engine;
	handle: DatabaseHandle;
	db: Database;
	/** The URL of this database on the server (postgres only). */
	url: string | null;
	drop(): Promise<void>;
}

/**
 * A new, empty (migrated) database of its own for one test file, so tests never see each other's rows:
 * a copy of the migrated template on either engine (tests/helpers/pglite-template.ts, postgres.js).
 */
export async function createTestDatabase(engine: Engine, options: { max?: number } = {}): Promise<TestDatabase> {
	if (engine === 'pglite') {
		const handle = createDb({ databaseUrl: null, pgliteDataDir: 'memory://' }, { pgliteDump: await pgliteTemplate() });
		await handle.ready();
		return { engine, handle, db: handle.db, url: null, drop: () => handle.close() };
	}
	const database = await createServerDatabase(requireServerUrl());
	const handle = createDb({ databaseUrl: database.url, pgliteDataDir: '' }, { max: options.max ?? 10 });
	return {
		engine,
		handle,
		db: handle.db,
		url: database.url,
		async drop() {
			await handle.close();
			await database.drop();
		}
	};
}
