import { error } from '@sveltejs/kit';
import { loadConfig, type Config } from './config';
import { createDb, type Database, type DatabaseHandle } from '../db/client';
import {
	SchemaNotMigratedError,
	faultForLog,
	isDatabaseUnavailable,
	isOutOfResources,
	isStatementTimeout,
	sqlState
} from '../db/errors';
import { noteOutOfResources } from '../db/health';
import { createSessionCodec, type SessionCodec } from '../auth/session';
import { outboxTargets } from './deliveries';
import type { OutboxTargets } from './outbox-targets';
import { rpcEndpoint, type ChainEndpoints } from './endpoints';
import type { Roster } from './roster';
import { singleton } from '$lib/platform/singleton';
import { logger } from './observability';
import type { Log } from '../db/log';
import { m } from '$lib/paraglide/messages';

/** The process's configuration and shared resources, made once at start-up. */
export interface Runtime {
	config: Config;
	database: DatabaseHandle;
	sessions: SessionCodec;
	/** The outbox rows a change writes with it (webhook endpoints, push, e-mail); routes pass it to the operation. */
	outbox: OutboxTargets;
	/** The chain endpoints (POLYGON_RPC_URL, ENS_RPC_URL); routes pass the one an operation needs to it. */
	chain: ChainEndpoints;
	/** The configured owners and reviewers (ADMIN_ADDRESSES, REVIEWER_ADDRESSES); routes pass it down. */
	roster: Roster;
}

const current = singleton<Runtime | null>('runtime', () => null);

/**
 * Validates the configuration (throws ConfigError) and creates the shared resources; the session
 * keys take one scrypt per password (docs/decisions/0014-session-keys-from-scrypt.md).
 */
export async function startRuntime(env: Record<string, string | undefined>): Promise<Runtime> {
	const config = loadConfig(env);
	return current.set({
		config,
		database: createDb(config, { log: serverLog }),
		sessions: await createSessionCodec(config),
		outbox: outboxTargets(config),
		chain: { polygon: rpcEndpoint(config.polygonRpcUrl), ens: rpcEndpoint(config.ensRpcUrl) },
		roster: { owners: config.adminAddresses, reviewers: config.reviewerAddresses }
	});
}

export function runtime(): Runtime {
	const started = current.get();
	if (!started) throw new Error('The runtime was not started (hooks.server.ts init).');
	return started;
}

export const DATABASE_UNAVAILABLE = {
	code: 'database_unavailable',
	message: 'The database is unavailable. Try again in a moment.'
} as const;

/** The same 503 in the request's language: a page's (the API's is English, as DATABASE_UNAVAILABLE). */
const databaseUnavailable = () => ({ code: DATABASE_UNAVAILABLE.code, message: m.error_database_unavailable() });

/** The server's log lines outside requests (start-up, migrations, backups, shutdown), as JSON through pino. */
export const serverLog: Log = (level, msg, fields = {}) => logger[level](fields, msg);

/** At most one warning a minute while writes fail for want of space: enough to see, not a flood. */
const OUT_OF_SPACE_WARNING_EVERY_MS = 60_000;
let lastOutOfSpaceWarning = 0;

/** Writes fail for want of space (or memory, or connections: SQLSTATE class 53): a warning in the log. */
export function warnOutOfResources(state: string | null): void {
	if (Date.now() - lastOutOfSpaceWarning < OUT_OF_SPACE_WARNING_EVERY_MS) return;
	lastOutOfSpaceWarning = Date.now();
	serverLog(
		'warn',
		state === '53200'
			? 'Writes fail: the database is out of memory; requests that write answer 503 until it recovers'
			: state === '53300'
				? 'Writes fail: the database has no connection free; requests that write answer 503 until one is'
				: 'Writes fail: no space left for the database; requests that write answer 503 until space is freed',
		{ sqlstate: state }
	);
}

/**
 * Runs `work` against the database once it answers with a current schema. The one place where an
 * outage (or a statement cancelled by the statement timeout, SQLSTATE 57014) becomes SvelteKit's 503
 * database_unavailable (pages render it; JSON routes answer it through jsonErrorFrom), never a 500 or a hang. Every other error keeps its own meaning.
 */
export async function withDatabase<T>(work: (db: Database, handle: DatabaseHandle) => Promise<T>): Promise<T> {
	const { database } = runtime();
	try {
		await database.ready();
		return await work(database.db, database);
	} catch (err) {
		// Out of disk (or memory): /healthz answers 503 until writes work again.
		if (isOutOfResources(err)) {
			noteOutOfResources();
			warnOutOfResources(sqlState(err));
		}
		if (isDatabaseUnavailable(err) || err instanceof SchemaNotMigratedError) error(503, databaseUnavailable());
		// A statement cancelled by the statement timeout: the database did not answer in time, as in an
		// outage; the 503 is expected (no error log of its own), so the slow statement is said here.
		if (isStatementTimeout(err)) {
			serverLog('warn', 'A statement ran past the statement timeout: the request answers 503', {
				sqlstate: '57014',
				fault: faultForLog(err).split('\n')[0]
			});
			error(503, databaseUnavailable());
		}
		throw err;
	}
}
