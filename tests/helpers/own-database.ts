// A built server on a database of its own whose row counts a test can read between requests:
// the Postgres server when TEST_DATABASE_URL is set, else a PGlite folder (read while the server is stopped).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import postgres from 'postgres';
import { serverUrl } from './db';
import { createServerDatabase } from './postgres.js';
import { startServer, type RunningServer } from './server';

/** The tables whose rows record what people did (the per-address counters are not among them). */
export const DATA_TABLES = [
	'members',
	'applications',
	'application_events',
	'application_revisions',
	'application_notes',
	'check_ins',
	'webhook_deliveries',
	'application_votes'
] as const;

export interface OwnDatabasePortal {
	url: string;
	output(): string;
	/** Rows per data table; on PGlite the server is stopped for the count and started again on the same port. */
	rowCounts(): Promise<Record<string, number>>;
	stop(): Promise<void>;
}

const COUNT = DATA_TABLES.map((t) => `(select count(*)::int from ${t}) as ${t}`).join(', ');

export async function startPortalOnOwnDatabase(env: Record<string, string> = {}): Promise<OwnDatabasePortal> {
	let server: RunningServer;
	if (serverUrl) {
		const database = await createServerDatabase(serverUrl);
		const sql = postgres(database.url, { max: 1, onnotice: () => {} });
		server = await startServer({ env: { ...env, DATABASE_URL: database.url } });
		return {
			url: server.url,
			output: () => server.output(),
			rowCounts: async () => ({ ...(await sql.unsafe<Record<string, number>[]>(`select ${COUNT}`))[0] }),
			async stop() {
				await server.stop();
				await sql.end();
				await database.drop();
			}
		};
	}
	const dir = mkdtempSync(path.join(tmpdir(), 'portal-own-'));
	const fullEnv = { ...env, PGLITE_DATA_DIR: dir };
	server = await startServer({ env: fullEnv });
	const port = server.port;
	let earlier = '';
	return {
		url: server.url,
		output: () => earlier + server.output(),
		async rowCounts() {
			await server.stop();
			earlier += server.output();
			const db = new PGlite(dir);
			try {
				return { ...(await db.query<Record<string, number>>(`select ${COUNT}`)).rows[0] };
			} finally {
				await db.close();
				server = await startServer({ env: fullEnv, port });
			}
		},
		async stop() {
			await server.stop();
			rmSync(dir, { recursive: true, force: true });
		}
	};
}
