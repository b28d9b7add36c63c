// The upgrade of docs/operating.md ("Upgrades") run as an operator runs it, while members use the
// portal: on a clean clone whose portal is running, `git pull` of a new version (its lockfile changed:
// `npm ci`), `npm run build`, then a restart. Pages, the scripts and styles the running portal handed
// out, and sign-ins are requested all the way through; none may answer 500, and only the restart itself
// may refuse a connection. The one expensive test of the suite (a real `npm ci` and `npm run build` in
// the clone: about 4-6 minutes on 2 shared cores); the first build is the working folder's own, copied.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, startServer, type RunningServer } from '../helpers/server';
import { signIn } from '../helpers/siwe';

const ROOT = path.resolve('.');
const work = mkdtempSync(path.join(tmpdir(), 'portal-upgrade-'));
const upstream = path.join(work, 'upstream');
const clone = path.join(work, 'portal');

/** Runs a command as an operator would type it, in `cwd`; resolves with its status and output. */
function sh(command: string, cwd: string): Promise<{ code: number | null; output: string }> {
	return new Promise((resolve) => {
		const child = spawn('sh', ['-c', command], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
		let output = '';
		child.stdout.on('data', (c: Buffer) => (output += String(c)));
		child.stderr.on('data', (c: Buffer) => (output += String(c)));
		child.on('close', (code) => resolve({ code, output }));
	});
}

const git = (args: string, cwd: string) =>
	sh(`git -c user.name=upgrade -c user.email=upgrade@example.org ${args}`, cwd);

interface Answer {
	path: string;
	status: number | 'refused';
	at: number;
}

/** Members using the portal: pages, the scripts and styles of the page they loaded first, and sign-ins, in a loop. */
function members(url: string, assets: string[]) {
	const answers: Answer[] = [];
	let running = true;
	const paths = [
		'/',
		'/setup',
		'/es',
		'/apply',
		'/checkin',
		'/inbox',
		'/api/auth/me',
		'/no-such-page',
		'/healthz',
		...assets
	];
	const loops = [0, 1].map(async (offset) => {
		for (let i = offset; running; i += 2) {
			const p = paths[i % paths.length]!;
			const at = Date.now();
			const status = await fetch(`${url}${p}`, { redirect: 'manual', signal: AbortSignal.timeout(20_000) })
				.then(async (r) => (await r.arrayBuffer(), r.status))
				.catch(() => 'refused' as const);
			answers.push({ path: p, status, at });
			if (i % 25 === 0) {
				const signedIn = await signIn(url, privateKeyToAccount(generatePrivateKey())).then(
					() => 200,
					(err: unknown) => (/\b5\d\d\b/.test(String(err)) ? 500 : 'refused')
				);
				answers.push({ path: 'sign-in', status: signedIn, at: Date.now() });
			}
			// A member's pace, not a load test's: the server's answers, not its throughput, are what is checked,
			// and at 50 ms the loops cost about as much CPU as the build they wait on (bench/README.md, CI time).
			await new Promise((r) => setTimeout(r, 250));
		}
	});
	return {
		answers,
		stop: async () => {
			running = false;
			await Promise.all(loops);
		}
	};
}

let server: RunningServer | undefined;
afterAll(async () => {
	await server?.stop();
	// Two clones with their packages: slow to remove on a loaded machine.
	await rm(work, { recursive: true, force: true });
}, 600_000);

describe('the documented upgrade while members use the portal', () => {
	it('git pull, npm ci (the lockfile changed), npm run build, restart: never a 500, the old build served until the restart, the new one after', async () => {
		// The operator's clone of "the repository" (here a copy of this one, at this commit), with its packages and its build.
		expect((await git(`clone -q ${ROOT} ${upstream}`, work)).code).toBe(0);
		expect((await git(`clone -q ${upstream} ${clone}`, work)).code).toBe(0);
		expect((await sh(`cp -al ${ROOT}/node_modules node_modules`, clone)).code).toBe(0);
		const current = realpathSync(path.join(ROOT, 'build'));
		expect((await sh(`mkdir .builds && cp -al ${current} .builds/${path.basename(current)}`, clone)).code).toBe(0);
		symlinkSync(path.join('.builds', path.basename(current)), path.join(clone, 'build'));

		const port = await freePort();
		const env = { PGLITE_DATA_DIR: path.join(work, 'data'), BACKUP_KEEP: undefined };
		server = await startServer({ cwd: clone, port, env });
		const url = server.url;
		// The scripts and styles a page that hydrates hands out (the home page has no script: issue 61).
		const setup = await (await fetch(`${url}/setup`)).text();
		const assets = [...new Set([...setup.matchAll(/\/_app\/immutable\/[\w./-]+\.(?:js|css)/g)].map((m) => m[0]))];
		expect(assets.length).toBeGreaterThan(2);
		const load = members(url, assets);

		// A new version upstream: a visible change, and a lockfile that changed (the version in it).
		const pkg = JSON.parse(readFileSync(path.join(upstream, 'package.json'), 'utf8')) as { version: string };
		const next = pkg.version.replace(/\d+$/, (n) => String(Number(n) + 1));
		for (const file of ['package.json', 'package-lock.json']) {
			const text = readFileSync(path.join(upstream, file), 'utf8');
			writeFileSync(path.join(upstream, file), text.replace(`"version": "${pkg.version}"`, `"version": "${next}"`));
		}
		const messages = path.join(upstream, 'messages', 'en.json');
		writeFileSync(
			messages,
			readFileSync(messages, 'utf8').replace('"How membership works"', '"How membership works, upgraded"')
		);
		expect((await git('commit -qam "the next version"', upstream)).code).toBe(0);

		// docs/operating.md, "Upgrades", step by step.
		const pulled = await git('pull -q', clone);
		expect(pulled).toMatchObject({ code: 0 });
		const ci = await sh('git diff --quiet ORIG_HEAD HEAD -- package-lock.json || npm ci --no-audit --no-fund', clone);
		expect(ci.output).toMatch(/added \d+ packages/); // it did run: the lockfile changed
		expect(ci.code).toBe(0);
		const built = await sh('npm run build', clone);
		expect({ code: built.code, tail: built.output.slice(-400) }).toMatchObject({ code: 0 });
		expect(built.output).not.toContain('npm run preview');
		expect(built.output).toContain('Restart the portal to serve it');
		// Still the old version, still whole, until the restart.
		expect(await (await fetch(`${url}/`)).text()).not.toContain('upgraded');

		const restartAt = Date.now();
		await server.stop();
		server = await startServer({ cwd: clone, port, env });
		const backAt = Date.now();
		expect(server.output()).toMatch(/Listening on/);
		await new Promise((r) => setTimeout(r, 3000));
		await load.stop();

		expect(await (await fetch(`${url}/`)).text()).toContain('How membership works, upgraded');
		const { answers } = load;
		expect(answers.length).toBeGreaterThan(100);
		// Never a 500; refused connections only while it restarted.
		expect(answers.filter((a) => typeof a.status === 'number' && a.status >= 500)).toEqual([]);
		expect(answers.filter((a) => a.status === 'refused' && (a.at < restartAt - 1000 || a.at > backAt))).toEqual([]);
		// The scripts and styles it handed out were served whole up to the restart.
		const oldAssets = answers.filter((a) => assets.includes(a.path) && a.at < restartAt);
		expect(oldAssets.length).toBeGreaterThan(assets.length);
		expect(oldAssets.filter((a) => a.status !== 200)).toEqual([]);
	}, 1_500_000);
});
