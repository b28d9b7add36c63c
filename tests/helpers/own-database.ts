// A built server on a database of its own whose row counts a test can read between requests:
// the Postgres server when TEST_DATABASE_URL is set, else a PGlite folder (read while the server is stopped).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pgliteOptions } from '../../src/lib/server/db/embedded.js';
import postgres from 'postgres';
import { createServerDatabase } from './postgres.js';
import { startServer, type RunningServer } from './server';

// As tests/helpers/db.ts reads it; not imported from there, whose import of the migrator (and its JSON
// journal) Playwright's loader cannot take: the e2e specs use this helper too.
const serverUrl = process.env.TEST_DATABASE_URL ?? null;

/** The tables whose rows record what people did (the per-address counters are not among them). */
export const DATA_TABLES = [
	'members',
	'applications',
	'application_events',
	'application_revisions',
	'application_notes',
	'check_ins',
	'webhook_deliveries',
	'application_votes',
	'application_files'
] as const;

export interface OwnDatabasePortal {
	url: string;
	output(): string;
	/** Rows per data table; on PGlite the server is stopped for the count and started again on the same port. */
	rowCounts(): Promise<Record<string, number>>;
	/** One SQL statement's rows (to read or seed what pages cannot); on PGlite the server is stopped for it. */
	query<T = Record<string, unknown>>(text: string): Promise<T[]>;
	/** The exit codes of the server's processes that ended without being stopped by this helper. */
	crashes(): (number | null)[];
	stop(): Promise<void>;
}

const COUNT = DATA_TABLES.map((t) => `(select count(*)::int from ${t}) as ${t}`).join(', ');

export async function startPortalOnOwnDatabase(env: Record<string, string> = {}): Promise<OwnDatabasePortal> {
	let server: RunningServer;
	// A process that ends by itself (a crash) is recorded; one this helper stops is not.
	const crashes: (number | null)[] = [];
	const stopped = new WeakSet<RunningServer>();
	const watched = (running: RunningServer) => {
		void running.exited.then((code) => {
			if (!stopped.has(running)) crashes.push(code);
		});
		return running;
	};
	const stopServer = () => {
		stopped.add(server);
		return server.stop();
	};
	if (serverUrl) {
		const database = await createServerDatabase(serverUrl);
		const sql = postgres(database.url, { max: 1, onnotice: () => {} });
		server = watched(await startServer({ env: { ...env, DATABASE_URL: database.url } }));
		return {
			url: server.url,
			output: () => server.output(),
			rowCounts: async () => ({ ...(await sql.unsafe<Record<string, number>[]>(`select ${COUNT}`))[0] }),
			query: async <T>(text: string) => [...(await sql.unsafe(text))] as T[],
			crashes: () => crashes,
			async stop() {
				await stopServer();
				await sql.end();
				await database.drop();
			}
		};
	}
	const dir = mkdtempSync(path.join(tmpdir(), 'portal-own-'));
	const fullEnv = { ...env, PGLITE_DATA_DIR: dir };
	server = watched(await startServer({ env: fullEnv }));
	const port = server.port;
	let earlier = '';
	// The folder is the server's alone while it runs: it stops for a statement and starts again on the same port.
	const whileStopped = async <T>(text: string): Promise<T[]> => {
		await stopServer();
		earlier += server.output();
		// As the server opens it: with pg_trgm (the review table's search indexes) and durable writes.
		const db = new PGlite(pgliteOptions(dir));
		try {
			return (await db.query<T>(text)).rows;
		} finally {
			await db.close();
			server = watched(await startServer({ env: fullEnv, port }));
		}
	};
	return {
		url: server.url,
		output: () => earlier + server.output(),
		rowCounts: async () => ({ ...(await whileStopped<Record<string, number>>(`select ${COUNT}`))[0] }),
		query: whileStopped,
		crashes: () => crashes,
		async stop() {
			await stopServer();
			// PGlite may still be flushing a file as the process ends: retry instead of failing with ENOTEMPTY.
			rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
		}
	};
}
