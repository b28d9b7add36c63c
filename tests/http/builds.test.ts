// Builds that never change under a running server (scripts/build.js, decision 0047): the `build` link
// switches in one rename, old builds are kept for the servers not yet restarted and then pruned, a
// stale node_modules is refused before building, and a file that goes missing while a server sends it
// never ends the process. The built portal, from a hard-linked copy of the current build.
import { spawnSync } from 'node:child_process';
import {
	mkdirSync,
	mkdtempSync,
	readFileSync,
	readdirSync,
	readlinkSync,
	realpathSync,
	rmSync,
	writeFileSync
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUILDS_KEPT, lockfileProblem, pruneBuilds, switchBuild } from '../../scripts/build.js';
import { startServer } from '../helpers/server';

const work = mkdtempSync(path.join(tmpdir(), 'portal-builds-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the build link', () => {
	it('points at each new build in one rename, replaces a build folder of an older version, and keeps the newest builds', () => {
		const root = path.join(work, 'switch');
		const builds = path.join(root, '.builds');
		const made = ['20261201T000000Z-1', '20261201T010000Z-2', '20261201T020000Z-3', '20261201T030000Z-4'];
		for (const id of made) {
			mkdirSync(path.join(builds, id), { recursive: true });
			writeFileSync(path.join(builds, id, 'BUILD.json'), '{}');
		}
		mkdirSync(path.join(builds, '20261201T040000Z-5')); // a build that never finished
		// An older version's build/ folder: moved aside, not deleted under a server that may still run from it.
		mkdirSync(path.join(root, 'build'));
		writeFileSync(path.join(root, 'build', 'index.js'), '');
		switchBuild(root, made[0]!);
		expect(readlinkSync(path.join(root, 'build'))).toBe(path.join('.builds', made[0]!));
		for (const id of made.slice(1)) switchBuild(root, id);
		expect(realpathSync(path.join(root, 'build'))).toBe(realpathSync(path.join(builds, made[3]!)));
		expect(readdirSync(root).filter((name) => name.startsWith('build.'))).toEqual([]);
		pruneBuilds(root);
		expect(readdirSync(builds).sort()).toEqual(made.slice(-BUILDS_KEPT));
	});

	it('is not built from a node_modules that does not match package-lock.json', () => {
		expect(lockfileProblem(path.resolve('.'))).toBeNull();
		const root = path.join(work, 'stale');
		mkdirSync(path.join(root, 'node_modules'), { recursive: true });
		const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as {
			packages: Record<string, { version?: string }>;
		};
		writeFileSync(path.join(root, 'node_modules', '.package-lock.json'), JSON.stringify(lock));
		lock.packages['node_modules/valibot']!.version = '0.0.1';
		writeFileSync(path.join(root, 'package-lock.json'), JSON.stringify(lock));
		expect(lockfileProblem(root)).toBe('package-lock.json changed since npm ci last ran (valibot): run npm ci');
	});
});

describe('a file that goes missing while the server sends it', () => {
	it('is cut off or answered 404, and the server goes on serving', async () => {
		// A copy of the current build (hard links: its packages come along at no cost) whose files the test may remove.
		const build = path.join(work, 'copy');
		const copied = spawnSync('cp', ['-al', realpathSync('build'), build]);
		expect(copied.status).toBe(0);
		const server = await startServer({ entry: path.join(build, 'index.js') });
		try {
			// A page that hydrates: the home page has no script (issue 61).
			const setup = await (await fetch(`${server.url}/setup`)).text();
			const scripts = [...setup.matchAll(/\/_app\/immutable\/[\w./-]+\.js/g)].map((m) => m[0]);
			expect(scripts.length).toBeGreaterThan(0);
			const [gone, alsoGone] = scripts;
			// The compressed copy the server would send goes, the plain one stays: sirv listed both when it started.
			rmSync(path.join(build, 'client', `${gone}.gz`));
			rmSync(path.join(build, 'client', `${gone}.br`), { force: true });
			const answer = await fetch(`${server.url}${gone}`, { headers: { 'accept-encoding': 'gzip' } })
				.then(async (r) => ({ status: r.status, body: await r.text() }))
				.catch(() => ({ status: 'cut', body: '' }));
			expect(answer.status === 'cut' || answer.status === 404).toBe(true);
			// Every copy of another one gone.
			for (const suffix of ['', '.gz', '.br'])
				rmSync(path.join(build, 'client', `${alsoGone ?? gone}${suffix}`), { force: true });
			await fetch(`${server.url}${alsoGone ?? gone}`).catch(() => null);
			expect(server.process.exitCode).toBeNull();
			expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
			expect((await fetch(`${server.url}/setup`)).status).toBe(200);
			const logged = server
				.output()
				.split('\n')
				.filter((line) => line.includes('could not be read'));
			expect(logged.length).toBeGreaterThan(0);
			expect(JSON.parse(logged[0]!)).toMatchObject({ level: 'error', code: 'ENOENT' });
		} finally {
			await server.stop();
		}
	}, 90_000);
});

describe('a copy of the build runs from wherever it is', () => {
	it('carries its own packages and migrations', () => {
		const target = realpathSync('build');
		expect(readdirSync(path.join(target, 'drizzle')).sort()).toEqual(readdirSync('drizzle').sort());
		for (const name of ['@electric-sql/pglite', 'postgres', 'pino', 'viem'])
			expect(readdirSync(path.join(target, 'node_modules', name)).length).toBeGreaterThan(0);
		// Development tools stay out.
		expect(() => readdirSync(path.join(target, 'node_modules', 'vitest'))).toThrow();
		expect(JSON.parse(readFileSync(path.join(target, 'BUILD.json'), 'utf8'))).toMatchObject({
			version: expect.stringMatching(/^\d+\.\d+\.\d+/) as unknown
		});
	});
});
