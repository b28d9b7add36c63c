// The embedded default run for real (docs/operating.md): one server per folder, kill -9 and SIGTERM,
// backups under load restored to Postgres equal table by table. Real processes on real folders.
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import postgres from 'postgres';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import { pgliteOptions } from '../../src/lib/server/db/embedded.js';
import { requireServerUrl, serverUrl } from '../helpers/db';
import { SEED_SQL, VOTES_SQL, seededDatabase, type SeededDatabase } from '../helpers/insights-seed';
import { createServerDatabase } from '../helpers/postgres.js';
import { runScript } from '../helpers/scripts';
import { startServer, type RunningServer } from '../helpers/server';
import { signIn } from '../helpers/siwe';

/** pg_control's state (DBState, offset 16): 1 is "shut down", nothing to recover at the next start. */
const SHUT_DOWN = 1;
const controlState = (dir: string) => readFileSync(path.join(dir, 'global/pg_control')).readUInt32LE(16);

/** Signs in new wallets (a members row each) until stopped; the addresses the server acknowledged. */
function signInLoad(url: string, workers = 3) {
	const acknowledged: string[] = [];
	let running = true;
	const loops = Array.from({ length: workers }, async () => {
		while (running) {
			const account = privateKeyToAccount(generatePrivateKey());
			try {
				await signIn(url, account);
				acknowledged.push(account.address.toLowerCase());
			} catch {
				// refused or cut by a kill: not acknowledged
			}
		}
	});
	return {
		acknowledged,
		stop: async () => {
			running = false;
			await Promise.all(loops);
		}
	};
}

/** Rows of `table` on an open PGlite, as comparable text. */
async function embeddedRows(dir: string, tables: string[]): Promise<Record<string, string[]>> {
	const pg = new PGlite(pgliteOptions(dir));
	try {
		await pg.exec(`set timezone to 'UTC'`);
		const out: Record<string, string[]> = {};
		for (const table of tables)
			out[table] = (await pg.query<{ r: string }>(`select row_to_json(t)::text as r from "${table}" t`)).rows
				.map((row) => row.r)
				.sort();
		return out;
	} finally {
		await pg.close();
	}
}

/** Every line of a server's output, each of which must be JSON. */
const jsonLines = (output: string) =>
	output
		.trim()
		.split('\n')
		.map((line) => JSON.parse(line) as Record<string, unknown>);

async function stopWithin(server: RunningServer, ms: number) {
	const started = Date.now();
	server.process.kill('SIGTERM');
	const code = await Promise.race([server.exited, new Promise((r) => setTimeout(() => r('still running'), ms))]);
	return { code, ms: Date.now() - started };
}

describe('one server per embedded folder, kill -9 and SIGTERM', () => {
	const dir = mkdtempSync(path.join(tmpdir(), 'portal-folder-'));
	afterAll(() => rmSync(dir, { recursive: true, force: true }));
	const env = { PGLITE_DATA_DIR: dir, BACKUP_KEEP: '0' };

	it('refuses a second server on a held folder (status 1, folder and pid named, nothing written), takes over a kill -9 lock, loses no acknowledged write', async () => {
		const first = await startServer({ env });
		try {
			expect(first.output()).toMatch(/Listening on/);
			const cookie = await signIn(first.url, privateKeyToAccount(generatePrivateKey()));
			expect(cookie).toMatch(/^session=./);
			const before = readdirSync(dir).sort();

			const second = await startServer({ env });
			expect(await second.exited).toBe(1);
			expect(second.output()).toContain(`The data folder ${dir} is in use by process ${first.process.pid}`);
			expect(readdirSync(dir).sort()).toEqual(before);
			expect((await fetch(`${first.url}/healthz`)).status).toBe(200);

			// kill -9 in the middle of writes: every write the server acknowledged is there after.
			const load = signInLoad(first.url);
			while (load.acknowledged.length < 15) await new Promise((r) => setTimeout(r, 50));
			first.process.kill('SIGKILL');
			await first.exited;
			await load.stop();

			const third = await startServer({ env });
			expect(third.output()).toMatch(/Listening on/); // the dead process's lock taken over
			expect(await stopWithin(third, 10_000)).toMatchObject({ code: 0 });
			// Start-up, the takeover and the stop as JSON lines, like the requests; no plain text.
			const lines = jsonLines(third.output());
			expect(lines).toContainEqual(expect.objectContaining({ level: 'warn', pid: first.process.pid, dataFolder: dir }));
			expect(lines).toContainEqual(expect.objectContaining({ level: 'info', dataFolder: dir, database: 'embedded' }));
			expect(lines.at(-1)).toMatchObject({
				level: 'info',
				msg: 'The database is closed; the server stops.',
				status: 0
			});
			expect(controlState(dir)).toBe(SHUT_DOWN);
			const { members } = await embeddedRows(dir, ['members']);
			const addresses = new Set(members!.map((row) => (JSON.parse(row) as { address: string }).address));
			expect(load.acknowledged.filter((a) => !addresses.has(a))).toEqual([]);
		} finally {
			await first.stop();
		}
	}, 240_000);

	it('stops on SIGTERM under load with status 0 within 10 s, the database closed cleanly', async () => {
		const server = await startServer({ env });
		const load = signInLoad(server.url);
		while (load.acknowledged.length < 5) await new Promise((r) => setTimeout(r, 50));
		const { code, ms } = await stopWithin(server, 10_000);
		await load.stop();
		expect(code).toBe(0);
		expect(ms).toBeLessThan(10_000);
		expect(controlState(dir)).toBe(SHUT_DOWN);
		const again = await startServer({ env });
		expect((await fetch(`${again.url}/healthz`)).status).toBe(200);
		await again.stop();
	}, 180_000);
});

describe.runIf(serverUrl)('backups of the embedded folder, restored to Postgres', () => {
	let seeded: SeededDatabase;
	const work = mkdtempSync(path.join(tmpdir(), 'portal-backup-'));
	afterAll(async () => {
		rmSync(work, { recursive: true, force: true });
		await seeded?.drop();
	});

	it('a backup taken under write load holds every write acknowledged before it, restores to Postgres equal table by table, rollups agreeing, amcheck clean', async () => {
		seeded = await seededDatabase('pglite');
		await seeded.run(VOTES_SQL);
		expect(SEED_SQL).toContain('insert into applications');
		const dir = seeded.env.PGLITE_DATA_DIR!;
		const server = await startServer({ env: { PGLITE_DATA_DIR: dir, BACKUP_KEEP: undefined } });
		const load = signInLoad(server.url);
		while (load.acknowledged.length < 10) await new Promise((r) => setTimeout(r, 50));
		const before = [...load.acknowledged];
		const underLoad = path.join(work, 'under-load.sql.gz');
		const backup = await runScript('scripts/db-backup.js', ['--out', underLoad], { PGLITE_DATA_DIR: dir });
		expect(backup.stderr).toBe('');
		expect(backup.stdout).toContain('asking it for the backup');
		while (load.acknowledged.length < before.length + 5) await new Promise((r) => setTimeout(r, 50));
		await load.stop();
		const health = (await (await fetch(`${server.url}/healthz`)).json()) as { lastBackupAt: string | null };
		expect(Date.parse(health.lastBackupAt ?? '')).toBeGreaterThan(Date.now() - 120_000); // the daily backup at start
		expect(await stopWithin(server, 10_000)).toMatchObject({ code: 0 });

		// The backup under load: every write acknowledged before it, in a database amcheck finds whole.
		const first = await createServerDatabase(requireServerUrl(), { prefix: 'portal_restore', migrate: false });
		const restored = await runScript('scripts/db-restore.js', [underLoad, '--to', first.url]);
		expect(restored.stderr).toBe('');
		expect(restored.stdout).toContain("every table's row count matches the backup");
		const sql = postgres(first.url, { max: 1, onnotice: () => {} });
		try {
			const members = new Set((await sql<{ address: string }[]>`select address from members`).map((m) => m.address));
			expect(before.filter((a) => !members.has(a))).toEqual([]);
			await sql`create extension if not exists amcheck`;
			const indexes =
				await sql`select bt_index_check(c.oid, true) from pg_index i join pg_class c on c.oid = i.indexrelid
				join pg_am am on am.oid = c.relam join pg_namespace n on n.oid = c.relnamespace where am.amname = 'btree' and n.nspname = 'public'`;
			expect(indexes.length).toBeGreaterThan(10);
		} finally {
			await sql.end();
			await first.drop();
		}

		// With the server stopped db:backup reads the folder itself; the restore equals the folder, table by table.
		const offline = path.join(work, 'offline.sql.gz');
		expect((await runScript('scripts/db-backup.js', ['--out', offline], { PGLITE_DATA_DIR: dir })).stderr).toBe('');
		const target = await createServerDatabase(requireServerUrl(), { prefix: 'portal_restore', migrate: false });
		const moved = postgres(target.url, { max: 1, onnotice: () => {}, connection: { TimeZone: 'UTC' } });
		try {
			expect((await runScript('scripts/db-restore.js', [offline, '--to', target.url])).stderr).toBe('');
			const tables = (
				await moved<{ name: string }[]>`select tablename as name from pg_tables where schemaname = 'public' order by 1`
			).map((t) => t.name);
			expect(tables).toContain('insights_applications');
			const source = await embeddedRows(dir, tables);
			for (const table of tables) {
				const rows = (await moved.unsafe(`select row_to_json(t)::text as r from "${table}" t`)).map((row) =>
					String(row.r)
				);
				expect({ table, rows: rows.sort() }).toEqual({ table, rows: source[table] });
			}
			// The rollups came across as data, not counted again by the triggers: each application once.
			const [rollup] =
				await moved`select (select coalesce(sum(applications), 0)::int from insights_applications) as rolled,
				(select count(*)::int from applications) as applications`;
			expect(rollup!.rolled).toBe(rollup!.applications);
			expect(rollup!.applications).toBeGreaterThan(5);
			// Identity values continue after the restored rows.
			const [ids] =
				await moved`select (select max(id) from application_votes) as top, nextval(pg_get_serial_sequence('application_votes', 'id')) as next`;
			expect(Number(ids!.next)).toBeGreaterThan(Number(ids!.top));
			// A non-empty target is refused.
			const again = await runScript('scripts/db-restore.js', [offline, '--to', target.url]);
			expect(again.code).toBe(1);
			expect(again.stderr).toContain('not empty');
		} finally {
			await moved.end();
			await target.drop();
		}
	}, 400_000);
});

describe("npm start's .env", () => {
	it('is read from the working folder; a variable set in the environment wins; an empty line leaves the default', async () => {
		const cwd = mkdtempSync(path.join(tmpdir(), 'portal-env-'));
		try {
			writeFileSync(
				path.join(cwd, '.env'),
				'PORT=4100\nHOST=0.0.0.0\nORIGIN=\nPGLITE_DATA_DIR="/srv/portal data"\n# BACKUP_KEEP=3\n'
			);
			const probe = path.join(cwd, 'probe.mjs');
			writeFileSync(
				probe,
				`import { embeddedFolder, loadDotEnv } from ${JSON.stringify(path.resolve('scripts/portal-env.js'))};
loadDotEnv();
const { PORT, HOST, ORIGIN, BACKUP_KEEP } = process.env;
console.log(JSON.stringify({ PORT, HOST, ORIGIN: ORIGIN ?? null, BACKUP_KEEP: BACKUP_KEEP ?? null, folder: embeddedFolder() }));`
			);
			const run = await runScript(probe, [], { HOST: '127.0.0.1' }, cwd);
			expect(JSON.parse(run.stdout)).toEqual({
				PORT: '4100',
				HOST: '127.0.0.1',
				ORIGIN: null,
				BACKUP_KEEP: null,
				folder: '/srv/portal data'
			});
		} finally {
			rmSync(cwd, { recursive: true, force: true });
		}
	});
});
