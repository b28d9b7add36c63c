// Backups as an operator takes and restores them (docs/operating.md, "Backups", "Restore"): db:restore
// all or nothing, encrypted backups, the portal's version in the header, db:* run as root on a folder a
// service user owns, daily backups on PostgreSQL with their log lines and metric. The db:* scripts and
// the built server, run as processes on real folders and a real PostgreSQL.
import { spawnSync } from 'node:child_process';
import {
	chownSync,
	existsSync,
	lstatSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	readdirSync,
	rmSync,
	statSync,
	writeFileSync
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireServerUrl, serverUrl } from '../helpers/db';
import { seededDatabase, type SeededDatabase } from '../helpers/insights-seed';
import { createServerDatabase } from '../helpers/postgres.js';
import { runScript } from '../helpers/scripts';
import { startServer } from '../helpers/server';

const work = mkdtempSync(path.join(tmpdir(), 'portal-backups-'));
let seeded: SeededDatabase;
let backup: string;
let tampered: string;
beforeAll(async () => {
	seeded = await seededDatabase('pglite');
	backup = path.join(work, 'good.sql.gz');
	const made = await runScript('scripts/db-backup.js', ['--out', backup], {
		PGLITE_DATA_DIR: seeded.env.PGLITE_DATA_DIR!
	});
	expect(made.stderr).toBe('');
	// The same backup whose closing counts claim one member more than its rows hold.
	const lines = gunzipSync(readFileSync(backup)).toString('utf8').trimEnd().split('\n');
	const counts = JSON.parse(lines.at(-1)!.replace(/^-- rows: /, '')) as Record<string, number>;
	counts.members! += 1;
	lines[lines.length - 1] = `-- rows: ${JSON.stringify(counts)}`;
	tampered = path.join(work, 'tampered.sql.gz');
	writeFileSync(tampered, gzipSync(lines.join('\n') + '\n'));
}, 180_000);
afterAll(async () => {
	rmSync(work, { recursive: true, force: true });
	await seeded?.drop();
});

/** A failed db:* command: status 1, one line on stderr. */
function failedInOneLine(run: { code: number | null; stderr: string }) {
	expect(run.code).toBe(1);
	expect(run.stderr.trim().split('\n')).toHaveLength(1);
	expect(run.stderr).not.toMatch(/^\s+at /m);
	return run.stderr.trim();
}

describe('db:restore is all or nothing', () => {
	it('into an embedded folder: a failed row check leaves no folder (or the empty one as it was), and a retry restores', async () => {
		const target = path.join(work, 'restored');
		const failed = await runScript('scripts/db-restore.js', [tampered], { PGLITE_DATA_DIR: target });
		expect(failedInOneLine(failed)).toMatch(
			/^Restore failed: the restored row counts differ from the backup's \(members: \d+ rows, the backup has \d+\); nothing was kept$/
		);
		expect(existsSync(target)).toBe(false);
		expect(readdirSync(work).filter((name) => name.includes('restoring'))).toEqual([]);

		mkdirSync(target);
		expect((await runScript('scripts/db-restore.js', [tampered], { PGLITE_DATA_DIR: target })).code).toBe(1);
		expect(readdirSync(target)).toEqual([]);

		const restored = await runScript('scripts/db-restore.js', [backup], { PGLITE_DATA_DIR: target });
		expect(restored.stderr).toBe('');
		expect(restored.stdout).toContain("every table's row count matches the backup");
	}, 300_000);

	it.runIf(serverUrl)(
		'into PostgreSQL: a failed row check leaves the database with no table, schema or extension; a retry restores',
		async () => {
			const target = await createServerDatabase(requireServerUrl(), { prefix: 'portal_restore', migrate: false });
			const sql = postgres(target.url, { max: 1, onnotice: () => {} });
			const inside = async () =>
				sql`select (select count(*)::int from pg_tables where schemaname in ('public', 'drizzle')) as tables,
				(select count(*)::int from pg_namespace where nspname = 'drizzle') as schemas,
				(select count(*)::int from pg_extension where extname = 'pg_trgm') as extensions,
				(select count(*)::int from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = 'public') as functions`;
			try {
				const before = await inside();
				const failed = await runScript('scripts/db-restore.js', [tampered, '--to', target.url]);
				expect(failedInOneLine(failed)).toContain('nothing was kept');
				expect(await inside()).toEqual(before);
				const restored = await runScript('scripts/db-restore.js', [backup, '--to', target.url]);
				expect(restored.stderr).toBe('');
				const [members] = await sql`select count(*)::int as n from members`;
				expect(members!.n).toBeGreaterThan(0);
			} finally {
				await sql.end();
				await target.drop();
			}
		},
		120_000
	);
});

describe('a backup names the portal that took it', () => {
	it('its header carries package.json version and the git commit, and the guide says how to find that code', () => {
		const head = gunzipSync(readFileSync(backup)).toString('utf8').split('\n').slice(0, 4);
		const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
		const commit = spawnSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).stdout.trim().slice(0, 12);
		expect(head[2]).toMatch(
			new RegExp(`^-- portal: member-portal ${version.replaceAll('.', '\\.')} \\(commit ${commit}`)
		);
		expect(readFileSync('docs/operating.md', 'utf8')).toContain('git checkout <commit>');
	});
});

describe('db:backup --encrypt', () => {
	it('seals the backup with the key file; db:restore needs that key, refuses another in one line, and restores with it', async () => {
		const keyFile = path.join(work, 'backup.key');
		writeFileSync(keyFile, randomBytes(32).toString('base64') + '\n', { mode: 0o600 });
		const otherKey = path.join(work, 'other.key');
		writeFileSync(otherKey, randomBytes(32).toString('hex') + '\n', { mode: 0o600 });
		const sealed = path.join(work, 'sealed.sql.gz.enc');
		const made = await runScript('scripts/db-backup.js', ['--out', sealed, '--encrypt', keyFile], {
			PGLITE_DATA_DIR: seeded.env.PGLITE_DATA_DIR!
		});
		expect(made.stderr).toBe('');
		expect(made.stdout).toContain('encrypted');
		const bytes = readFileSync(sealed);
		expect(bytes.subarray(0, 8).toString()).toBe('MPBKGCM1');
		expect(() => gunzipSync(bytes)).toThrow();
		// Nothing of the data in the clear: the seeded names are in the plain backup, not in this one.
		expect(gunzipSync(readFileSync(backup)).toString()).toContain('INSERT INTO');
		expect(bytes.toString('latin1')).not.toMatch(/INSERT INTO|member-portal backup/);
		expect(statSync(sealed).mode & 0o777).toBe(0o600);

		const target = path.join(work, 'from-sealed');
		const noKey = await runScript('scripts/db-restore.js', [sealed], { PGLITE_DATA_DIR: target });
		expect(failedInOneLine(noKey)).toBe(`Restore failed: ${sealed} is encrypted: give its key file with --key KEYFILE`);
		const wrongKey = await runScript('scripts/db-restore.js', [sealed, '--key', otherKey], { PGLITE_DATA_DIR: target });
		expect(failedInOneLine(wrongKey)).toBe(
			`Restore failed: ${sealed} is not a whole member-portal backup: the encrypted backup does not open with this key, or it was changed`
		);
		expect(existsSync(target)).toBe(false);
		const restored = await runScript('scripts/db-restore.js', [sealed, '--key', keyFile], { PGLITE_DATA_DIR: target });
		expect(restored.stderr).toBe('');
		expect(restored.stdout).toContain("every table's row count matches the backup");
	}, 300_000);
});

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

describe.runIf(asRoot)('db:* run as root on a folder a service user owns', () => {
	const SERVICE = 4242;
	it('db:backup and db:restore leave every file there the owner’s, and the service user starts on it', async () => {
		const owned = mkdtempSync(path.join(tmpdir(), 'portal-owned-'));
		try {
			chownSync(owned, SERVICE, SERVICE);
			const dir = path.join(owned, 'pglite');
			spawnSync('cp', ['-a', seeded.env.PGLITE_DATA_DIR!, dir]);
			spawnSync('chown', ['-R', `${SERVICE}:${SERVICE}`, dir]);
			const notOwned = (folder: string): string[] =>
				readdirSync(folder, { recursive: true, encoding: 'utf8' })
					.map((name) => path.join(folder, name))
					.filter((file) => lstatSync(file).uid !== SERVICE);

			const backedUp = await runScript('scripts/db-backup.js', ['--out', path.join(work, 'as-root.sql.gz')], {
				PGLITE_DATA_DIR: dir
			});
			expect(backedUp.stderr).toBe('');
			expect(notOwned(dir)).toEqual([]);

			const restoredDir = path.join(owned, 'restored');
			const restored = await runScript('scripts/db-restore.js', [backup], { PGLITE_DATA_DIR: restoredDir });
			expect(restored.stderr).toBe('');
			expect(lstatSync(restoredDir).uid).toBe(SERVICE);
			expect(notOwned(restoredDir)).toEqual([]);

			// The service's user starts on the folder root backed up.
			const server = await startServer({ env: { PGLITE_DATA_DIR: dir }, uid: SERVICE });
			expect(server.output()).toMatch(/Listening on/);
			expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
			await server.stop();
		} finally {
			rmSync(owned, { recursive: true, force: true });
		}
	}, 180_000);
});

describe.runIf(serverUrl)('daily backups on PostgreSQL', () => {
	it('writes one into BACKUP_DIR at start, logs it as JSON, and reports it in /healthz and /metrics; a failure is a JSON error line', async () => {
		const database = await createServerDatabase(requireServerUrl(), { prefix: 'portal_daily' });
		const folder = path.join(work, 'daily');
		const token = randomBytes(24).toString('hex');
		const server = await startServer({
			env: { DATABASE_URL: database.url, BACKUP_DIR: folder, BACKUP_KEEP: '2', METRICS_TOKEN: token }
		});
		try {
			let files: string[] = [];
			for (let i = 0; i < 100 && files.length === 0; i++) {
				await new Promise((r) => setTimeout(r, 200));
				files = existsSync(folder)
					? readdirSync(folder).filter((name) => /^portal-\d{8}T\d{6}Z\.sql\.gz$/.test(name))
					: [];
			}
			expect(files).toHaveLength(1);
			const file = path.join(folder, files[0]!);
			expect(gunzipSync(readFileSync(file)).toString().split('\n')[0]).toBe('-- member-portal backup 1');
			const health = (await (await fetch(`${server.url}/healthz`)).json()) as { lastBackupAt: string };
			expect(Date.parse(health.lastBackupAt)).toBe(statSync(file).mtime.getTime());
			const metrics = await (
				await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })
			).text();
			const value = Number(/^portal_last_backup_timestamp_seconds (\S+)$/m.exec(metrics)?.[1]);
			expect(value).toBeCloseTo(statSync(file).mtime.getTime() / 1000, 2);
			const logged = server
				.output()
				.split('\n')
				.filter((line) => line.includes('Daily backup written'))
				.map((line) => JSON.parse(line) as Record<string, unknown>);
			expect(logged).toEqual([expect.objectContaining({ level: 'info', file, msg: 'Daily backup written' })]);
		} finally {
			await server.stop();
		}

		// A folder that cannot be made (a file is in the way): the failure is a JSON line, the server goes on.
		const blocked = path.join(work, 'blocked');
		writeFileSync(blocked, '');
		const failing = await startServer({
			env: { DATABASE_URL: database.url, BACKUP_DIR: path.join(blocked, 'daily'), BACKUP_KEEP: '2' }
		});
		try {
			let line: Record<string, unknown> | undefined;
			for (let i = 0; i < 100 && !line; i++) {
				await new Promise((r) => setTimeout(r, 200));
				const found = failing
					.output()
					.split('\n')
					.find((l) => l.includes('The daily backup failed'));
				line = found ? (JSON.parse(found) as Record<string, unknown>) : undefined;
			}
			expect(line).toMatchObject({ level: 'error', code: 'ENOTDIR' });
			expect((await fetch(`${failing.url}/healthz`)).status).toBe(200);
		} finally {
			await failing.stop();
			await database.drop();
		}
	}, 120_000);
});
