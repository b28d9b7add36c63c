import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import postgres from 'postgres';
import type { Config } from '../platform/config';
import { pgliteSnapshot, postgresSnapshot, type Snapshot } from './backup.js';
import { lockDataFolder } from './data-folder-lock.js';
import { DURABLE_START_PARAMS, DurableNodeFS } from './durable-nodefs.js';
import { SchemaNotMigratedError } from './errors';
import { applyMigrations, isSchemaCurrent } from './migrate';
import * as schema from './schema';

export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;

export interface DatabaseHandle {
	kind: 'postgres' | 'pglite';
	db: Database;
	/**
	 * Resolves once the database answers with a current schema. PGlite migrates itself here; a server
	 * must have been migrated with `npm run db:migrate`. A failed check is retried on the next call.
	 */
	ready(): Promise<void>;
	close(): Promise<void>;
	/** Runs work inside one consistent read of the whole database (backups: src/lib/server/db/backup.js). */
	snapshot: Snapshot;
}

export interface DbOptions {
	migrationsFolder?: string;
	/** Seconds to wait for a server connection before answering database_unavailable. */
	connectTimeoutSeconds?: number;
	/** Pool size for a Postgres server. */
	max?: number;
}

/**
 * Sizes for a small server on top of PGlite's start parameters (with fsync on for a folder on disk):
 * Postgres's default 128 MB of shared buffers live in the WebAssembly memory, which never shrinks;
 * 16 MB (the data files stay in the OS page cache) and 16 MB for index builds and vacuum keep
 * `npm start`'s server under 300 MiB (bench/README.md, "Embedded default RSS"). initdb, which runs
 * only for a new data folder, gets the same shared buffers.
 */
const PGLITE_SIZES = ['shared_buffers=16MB', 'maintenance_work_mem=16MB'].flatMap((setting) => ['-c', setting]);
const PGLITE_OPTIONS = {
	initDbStartParams: ['-c', 'shared_buffers=16MB'],
	// pg_trgm serves the admin review table's search (drizzle/0002 creates the extension).
	extensions: { pg_trgm }
};

const defaultMigrationsFolder = () => path.resolve(process.cwd(), 'drizzle');

/** A Postgres server through postgres.js when DATABASE_URL is set, embedded PGlite otherwise. */
export function createDb(
	config: Pick<Config, 'databaseUrl' | 'pgliteDataDir'>,
	options: DbOptions = {}
): DatabaseHandle {
	const migrationsFolder = options.migrationsFolder ?? defaultMigrationsFolder();
	if (config.databaseUrl) {
		const client = postgres(config.databaseUrl, {
			max: options.max ?? 10,
			connect_timeout: options.connectTimeoutSeconds ?? 3,
			idle_timeout: 30,
			onnotice: () => {},
			connection: { application_name: 'member-portal', statement_timeout: 10_000 }
		});
		const db = drizzlePostgres(client, { schema }) as unknown as Database;
		return {
			kind: 'postgres',
			db,
			ready: memoUntilFailure(async () => {
				if (!(await isSchemaCurrent(db))) throw new SchemaNotMigratedError();
			}),
			close: () => client.end({ timeout: 2 }),
			snapshot: postgresSnapshot(client)
		};
	}

	const dataDir = config.pgliteDataDir;
	const inMemory = dataDir.startsWith('memory://');
	// One process per folder (throws DataFolderHeldError, writing nothing); every commit fsynced to the disk.
	const lock = inMemory ? null : lockDataFolder(path.resolve(dataDir));
	const client = inMemory
		? new PGlite(dataDir, { ...PGLITE_OPTIONS, startParams: [...PGlite.defaultStartParams, ...PGLITE_SIZES] })
		: new PGlite({ ...PGLITE_OPTIONS, fs: new DurableNodeFS(dataDir), startParams: [...DURABLE_START_PARAMS, ...PGLITE_SIZES] });
	const db = drizzlePglite(client, { schema }) as unknown as Database;
	return {
		kind: 'pglite',
		db,
		ready: memoUntilFailure(() => applyMigrations(db, 'pglite', migrationsFolder)),
		snapshot: pgliteSnapshot(client),
		close: async () => {
			try {
				if (!client.closed) await client.close();
			} finally {
				lock?.release();
			}
		}
	};
}

/** Runs `check` once; while it fails, each later call tries again. */
function memoUntilFailure(check: () => Promise<void>): () => Promise<void> {
	let pending: Promise<void> | null = null;
	return () => {
		pending ??= check().catch((err: unknown) => {
			pending = null;
			throw err;
		});
		return pending;
	};
}
