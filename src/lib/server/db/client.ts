import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import postgres from 'postgres';
import { pgliteSnapshot, postgresSnapshot, type Snapshot } from './backup.js';
import { lockDataFolder, modeFixedInWords } from './data-folder-lock.js';
import { pgliteOptions } from './embedded.js';
import { SchemaNotMigratedError } from './errors';
import { applyMigrations, isSchemaCurrent } from './migrate';
import * as schema from './schema';
import type { Log } from './log';

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
	/** Where migrations applied at start and a lock taken over from a dead process are told. */
	log?: Log;
	/**
	 * PGlite in memory only: start from this copy of a data folder (PGlite's `dumpDataDir()`) instead of
	 * running initdb; `ready()` still applies any migration it lacks. The tests copy one migrated
	 * database this way (tests/helpers/pglite-template.ts).
	 */
	pgliteDump?: Blob;
}

/** The build's own copy (set by build/index.js: scripts/build.js copies drizzle/ into each build), else the working folder's. */
const defaultMigrationsFolder = () => process.env.PORTAL_MIGRATIONS_FOLDER ?? path.resolve(process.cwd(), 'drizzle');

/** A Postgres server through postgres.js when DATABASE_URL is set, embedded PGlite otherwise. */
export function createDb(
	config: { databaseUrl: string | null; pgliteDataDir: string },
	options: DbOptions = {}
): DatabaseHandle {
	const migrationsFolder = options.migrationsFolder ?? defaultMigrationsFolder();
	if (config.databaseUrl) {
		const client = postgres(config.databaseUrl, {
			max: options.max ?? 10,
			connect_timeout: options.connectTimeoutSeconds ?? 3,
			idle_timeout: 30,
			backoff: reconnectDelaySeconds,
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
	const log: Log = options.log ?? (() => {});
	const lock = inMemory
		? null
		: lockDataFolder(path.resolve(dataDir), {
				onTakeover: (pid) =>
					log('warn', `Took over the data folder's lock from process ${pid}, which is no longer running`, {
						dataFolder: path.resolve(dataDir),
						pid
					}),
				onModeFixed: (mode) =>
					log('warn', modeFixedInWords(path.resolve(dataDir), mode), {
						dataFolder: path.resolve(dataDir),
						mode: mode.toString(8)
					})
			});
	const client = new PGlite({
		...pgliteOptions(dataDir),
		...(inMemory && options.pgliteDump ? { loadDataDir: options.pgliteDump } : {})
	});
	const db = drizzlePglite(client, { schema }) as unknown as Database;
	return {
		kind: 'pglite',
		db,
		ready: memoUntilFailure(async () => {
			const applied = await applyMigrations(db, 'pglite', migrationsFolder);
			if (applied > 0) log('info', `Applied ${applied} new migration${applied === 1 ? '' : 's'}`, { applied });
		}),
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

/**
 * How long postgres.js waits before a connection's next attempt after `retries` failed ones in a row
 * (the pool's count; a connection that gets in sets it back to 0). Its own delay grows as 3^retries/100 s
 * up to 20 s, and a query waits it out before it fails: with the server away, the sixth failed attempt
 * made every request wait seconds for its 503, and a page whose work makes several attempts waited
 * them one after the other (13-19 s in tests/http/applications-postgres.test.ts on a loaded machine).
 * The same growth, with its jitter, capped at half a second: a request answers 503 within seconds, and
 * while the server is away each of the pool's 10 connections tries it at most every quarter to half second,
 * and only when a query asks.
 */
export const reconnectDelaySeconds = (retries: number) => (0.5 + Math.random() / 2) * Math.min(3 ** retries / 100, 0.5);

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
