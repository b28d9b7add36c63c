import { loadConfig, type Config } from './config';
import { createDb, type Database, type DatabaseHandle } from './db/client';
import { createSessionCodec, type SessionCodec } from './session';

/** The process's configuration and shared resources, made once at start-up. */
export interface Runtime {
	config: Config;
	database: DatabaseHandle;
	sessions: SessionCodec;
}

let current: Runtime | null = null;

/** Validates the configuration (throws ConfigError) and creates the shared resources. */
export function startRuntime(env: Record<string, string | undefined>): Runtime {
	const config = loadConfig(env);
	current = { config, database: createDb(config), sessions: createSessionCodec(config) };
	return current;
}

export function runtime(): Runtime {
	if (!current) throw new Error('The runtime was not started (hooks.server.ts init).');
	return current;
}

/** The database, once it answers with a current schema; throws DatabaseUnavailableError otherwise. */
export async function useDb(): Promise<Database> {
	const { database } = runtime();
	await database.ready();
	return database.db;
}
