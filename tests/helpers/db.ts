import { createDb, type Database, type DatabaseHandle } from '../../src/lib/server/db/client';
import { pgliteTemplate } from './pglite-template';
import { createServerDatabase } from './postgres.js';

export type Engine = 'pglite' | 'postgres';

export const serverUrl = process.env.TEST_DATABASE_URL ?? null;

/** Every engine this machine has: PGlite always; the Postgres server too when TEST_DATABASE_URL is set. */
export const availableEngines: Engine[] = serverUrl ? ['pglite', 'postgres'] : ['pglite'];

/**
 * The engines a `describe.each(engines)` file runs on (docs/decisions/0048-http-tests-on-one-engine.md):
 * `TEST_ENGINES=all` every engine available, `pglite` or `postgres` that one; unset, the project's own
 * default (`TEST_ENGINES_DEFAULT` in vite.config.ts): `all` for the integration tests (the SQL itself,
 * on both engines), `one` for the HTTP tests (the Postgres server when there is one, else PGlite). A file
 * whose subject is the engine (an outage, concurrency, statistics, a plan) asks for the server itself
 * with `describe.runIf(serverUrl)`, whatever this says.
 */
export const engines: Engine[] = selectEngines(process.env.TEST_ENGINES ?? process.env.TEST_ENGINES_DEFAULT ?? 'all');

function selectEngines(choice: string): Engine[] {
	switch (choice) {
		case 'all':
			return availableEngines;
		case 'one':
			return serverUrl ? ['postgres'] : ['pglite'];
		case 'pglite':
			return ['pglite'];
		case 'postgres':
			if (!serverUrl) throw new Error('TEST_ENGINES=postgres needs TEST_DATABASE_URL');
			return ['postgres'];
		default:
			throw new Error(`TEST_ENGINES=${choice}: expected all, one, pglite or postgres`);
	}
}

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
