// Every failure to start is one line in words and exit status 1, with no stack trace and nothing left
// behind (docs/operating.md, "When it does not start"): a port in use or invalid, a database that does
// not exist, a missing backup file, no space on an existing folder. The built portal, run as an
// operator runs it; the full disk is a real tmpfs of its own (mount needs root: skipped otherwise).
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { requireServerUrl, serverUrl } from '../helpers/db';
import { runScript } from '../helpers/scripts';
import { startServer } from '../helpers/server';

/** The one fatal line of a failed start (JSON, as every server line), its words; fails on a stack trace. */
function theOneLine(output: string): string {
	expect(output).not.toMatch(/^\s+at /m);
	expect(output).not.toMatch(/Error:|node:internal|\bthrow\b/);
	const fatal = output.split('\n').filter((line) => line.includes('"level":"fatal"'));
	expect(fatal).toHaveLength(1);
	const line = JSON.parse(fatal[0]!) as { msg: string };
	for (const other of output.trim().split('\n')) expect(() => JSON.parse(other) as unknown).not.toThrow();
	return line.msg;
}

/** A db:* command's failure: one line on stderr, nothing on it that looks like a stack. */
function oneScriptLine(run: { code: number | null; stderr: string }): string {
	expect(run.code).toBe(1);
	expect(run.stderr).not.toMatch(/^\s+at /m);
	expect(run.stderr.trim().split('\n')).toHaveLength(1);
	return run.stderr.trim();
}

const folders: string[] = [];
const newFolder = (prefix: string) => {
	const dir = mkdtempSync(path.join(tmpdir(), prefix));
	folders.push(dir);
	return dir;
};
afterAll(() => folders.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('a start that cannot go on says why in one line and exits 1', () => {
	it('PORT=notaport: the built server and npm start name the variable, write nothing', async () => {
		const dir = path.join(newFolder('portal-port-'), 'pglite');
		const server = await startServer({ env: { PORT: 'notaport', PGLITE_DATA_DIR: dir } });
		expect(await server.exited).toBe(1);
		expect(theOneLine(server.output())).toBe(
			'Invalid configuration: PORT: must be a port number from 0 to 65535, got "notaport"'
		);
		const launcher = await startServer({
			entry: 'scripts/start.js',
			env: { PORT: '70000', PGLITE_DATA_DIR: dir, PORTAL_DATA_DIR: path.dirname(dir) }
		});
		expect(await launcher.exited).toBe(1);
		expect(theOneLine(launcher.output())).toContain('PORT: must be a port number from 0 to 65535, got "70000"');
		expect(readdirSync(path.dirname(dir))).toEqual([]);
	});

	it('a port in use: the port named, the database closed, no lock or socket left in the folder', async () => {
		const dir = path.join(newFolder('portal-busy-'), 'pglite');
		const taken: Server = createServer();
		await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
		const port = (taken.address() as { port: number }).port;
		try {
			const server = await startServer({ port, env: { PGLITE_DATA_DIR: dir } });
			expect(await server.exited).toBe(1);
			expect(theOneLine(server.output())).toBe(
				`Cannot listen on port ${port} of 127.0.0.1: another process is using it. Stop that process or choose another PORT.`
			);
			expect(readdirSync(dir).filter((name) => /^(portal\.lock|backup\.sock)/.test(name))).toEqual([]);
			// The folder is free and whole: the next start on a free port serves.
			const next = await startServer({ env: { PGLITE_DATA_DIR: dir } });
			expect((await fetch(`${next.url}/healthz`)).status).toBe(200);
			await next.stop();
		} finally {
			taken.close();
		}
	}, 300_000);

	it.runIf(serverUrl)('a database that does not exist on the server: its name, never the URL', async () => {
		const url = new URL(requireServerUrl());
		url.pathname = '/portal_no_such_database';
		url.password = 'not-printed-secret';
		const server = await startServer({ env: { DATABASE_URL: url.href } });
		expect(await server.exited).toBe(1);
		const line = theOneLine(server.output());
		expect(line).toContain('The database "portal_no_such_database" does not exist');
		expect(server.output()).not.toContain('not-printed-secret');
		const migrate = await runScript('scripts/migrate.js', [], { DATABASE_URL: url.href });
		expect(oneScriptLine(migrate)).toBe(
			'Migration failed: the database "portal_no_such_database" does not exist on that server: create it first (createdb portal_no_such_database)'
		);
	});

	it('db:restore of a file that is missing, or not a backup: one line, nothing made', async () => {
		const work = newFolder('portal-restore-');
		const target = path.join(work, 'restored');
		const missing = await runScript('scripts/db-restore.js', [path.join(work, 'nope.sql.gz')], {
			PGLITE_DATA_DIR: target
		});
		expect(oneScriptLine(missing)).toBe(`Restore failed: there is no backup file ${path.join(work, 'nope.sql.gz')}`);
		const notGzip = path.join(work, 'notes.sql.gz');
		writeFileSync(notGzip, 'just text\n');
		const wrong = await runScript('scripts/db-restore.js', [notGzip], { PGLITE_DATA_DIR: target });
		expect(oneScriptLine(wrong)).toBe(
			`Restore failed: ${notGzip} is not a whole member-portal backup: incorrect header check`
		);
		expect(readdirSync(work)).toEqual(['notes.sql.gz']);
	});
});

const mountPoint = mkdtempSync(path.join(tmpdir(), 'portal-nospace-'));
const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', mountPoint]).status === 0;
if (!mounted) console.warn('start-failures.test.ts: the no-space case skipped: mounting a tmpfs needs root');

describe.runIf(mounted)('no space left on the disk of an existing data folder', () => {
	afterAll(() => {
		spawnSync('umount', ['-l', mountPoint]);
		rmSync(mountPoint, { recursive: true, force: true });
	});

	it('the server, npm start and db:backup each say so in one line, exit 1, and leave no lock file', async () => {
		const dir = path.join(mountPoint, 'pglite');
		// npm start's own files (the push keys) beside it, made by a first start as an operator's would be.
		const env = { PGLITE_DATA_DIR: dir, PORTAL_DATA_DIR: path.join(mountPoint, 'launcher') };
		const first = await startServer({ entry: 'scripts/start.js', env });
		expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
		await first.stop();
		const before = readdirSync(dir).sort();
		const filler = path.join(mountPoint, 'filler');
		const fd = openSync(filler, 'w');
		try {
			for (const block = Buffer.alloc(1 << 16, 1); ;) writeSync(fd, block);
		} catch (err) {
			expect((err as NodeJS.ErrnoException).code).toBe('ENOSPC');
		} finally {
			closeSync(fd);
		}

		const server = await startServer({ env: { PGLITE_DATA_DIR: dir } });
		expect(await server.exited).toBe(1);
		expect(theOneLine(server.output())).toBe(
			`Cannot start: no space left on the disk holding ${dir}: free some space and try again; nothing was lost.`
		);
		const launcher = await startServer({ entry: 'scripts/start.js', env });
		expect(await launcher.exited).toBe(1);
		expect(theOneLine(launcher.output())).toMatch(/^Cannot start: no space left on the disk holding /);
		const backup = await runScript('scripts/db-backup.js', ['--out', path.join(mountPoint, 'b.sql.gz')], {
			PGLITE_DATA_DIR: dir
		});
		expect(oneScriptLine(backup)).toMatch(/^Backup failed: no space left on the disk holding /);
		expect(readdirSync(dir).sort()).toEqual(before);
		expect(readdirSync(mountPoint).sort()).toEqual(['filler', 'launcher', 'pglite']);

		// Space back: it starts as if nothing happened.
		rmSync(filler);
		const again = await startServer({ env: { PGLITE_DATA_DIR: dir } });
		expect((await fetch(`${again.url}/healthz`)).status).toBe(200);
		await again.stop();
	}, 400_000);
});
