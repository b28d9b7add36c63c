// The upgrade of docs/operating.md ("Upgrades") run as an operator runs it, while members use the
// portal: on a clean clone whose portal is running, `git pull` of a new version (its lockfile changed:
// `npm ci`), `npm run build`, then a restart. Pages, the scripts and styles the running portal handed
// out, and sign-ins are requested all the way through; none may answer 500, and only the restart itself
// may refuse a connection. The one expensive test of the suite (a real `npm ci` and `npm run build` in
// the clone: about 4-6 minutes on 2 shared cores); the first build is the working folder's own, copied.
//
// With this version the operator also gives the portal its community's own branding (operating.md,
// "Your community's name on it"): all five PUBLIC_COMMUNITY_* / PUBLIC_ACCENT_COLOR settings on the
// build's command line (the README's example, with markup in the name to try the escaping). The branded
// build is then checked end to end on the restarted server: <title>, the header, the meta description
// and Open Graph tags, the favicon, the links on the home page, the accent colour, and a CSP that lets
// the logo load from its site. Those checks had a `vite build` of their own (60-80 CPU seconds, a fifth
// of a build's share of CI: bench/README.md, CI time); the upgrade's build is the same build.
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

const BRANDING = {
	PUBLIC_COMMUNITY_NAME: 'Lens <Garden> & "Friends"',
	PUBLIC_COMMUNITY_DESCRIPTION: 'Gardeners who fund public goods on Polygon. <script>alert(1)</script>',
	PUBLIC_COMMUNITY_LOGO_URL: 'https://cdn.lens.example/brand/logo.png',
	PUBLIC_ACCENT_COLOR: '#0a7f5a',
	PUBLIC_COMMUNITY_LINKS: 'Website=https://lens.example,Discord=https://discord.gg/lensgarden'
};
// Svelte escapes `<` and `&` in text (`>` alone opens nothing) and also `"` in attributes.
const NAME = 'Lens &lt;Garden> &amp; "Friends"';
const NAME_IN_ATTRIBUTE = 'Lens &lt;Garden> &amp; &quot;Friends&quot;';

/** Runs a command as an operator would type it, in `cwd` (with `env` added); resolves with its status and output. */
function sh(
	command: string,
	cwd: string,
	env: Record<string, string> = {}
): Promise<{ code: number | null; output: string }> {
	return new Promise((resolve) => {
		const child = spawn('sh', ['-c', command], {
			cwd,
			env: { ...process.env, ...env },
			stdio: ['ignore', 'pipe', 'pipe']
		});
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
		// The community's branding, new with this version: build-time settings (operating.md).
		const built = await sh('npm run build', clone, BRANDING);
		expect({ code: built.code, tail: built.output.slice(-400) }).toMatchObject({ code: 0 });
		expect(built.output).not.toContain('npm run preview');
		expect(built.output).toContain('Restart the portal to serve it');
		// Still the old version, still whole, until the restart.
		const before = await (await fetch(`${url}/`)).text();
		expect(before).not.toContain('upgraded');
		expect(before).not.toContain('Lens &lt;Garden>');

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

// The restarted server of the test above runs the branded build: the checks of a community's own
// branding, end to end (they fail with the upgrade when it did not get that far).
describe('a build with a community’s own branding (the upgraded build)', () => {
	const get = (p: string) => {
		if (!server) throw new Error('no upgraded server: the upgrade test above failed');
		return fetch(`${server.url}${p}`);
	};
	const meta = (page: string, key: string) =>
		new RegExp(`<meta (?:name|property)="${key}" content="([^"]*)"`).exec(page)?.[1];

	it.each([
		['/', NAME],
		['/setup', `Sign in · ${NAME}`]
	])('%s: the name in <title> and the header, the description, preview tags and the logo', async (p, title) => {
		const response = await get(p);
		expect(response.status).toBe(200);
		const page = await response.text();
		expect(page).toContain(`<title>${title}</title>`);
		// Markup in a setting is text, never markup.
		expect(page).not.toContain('<Garden>');
		expect(page).not.toContain('<script>alert(1)</script>');
		expect(meta(page, 'description')).toBe(
			'Gardeners who fund public goods on Polygon. &lt;script>alert(1)&lt;/script>'
		);
		expect(meta(page, 'og:site_name')).toBe(NAME_IN_ATTRIBUTE);
		expect(meta(page, 'og:title')).toBe(title.replace(NAME, NAME_IN_ATTRIBUTE));
		expect(meta(page, 'og:image')).toBe(BRANDING.PUBLIC_COMMUNITY_LOGO_URL);
		expect(page).toContain(`<link rel="icon" href="${BRANDING.PUBLIC_COMMUNITY_LOGO_URL}"`);
		const header = /<header[\s\S]*?<\/header>/.exec(page)?.[0] ?? '';
		expect(header).toContain(`<img src="${BRANDING.PUBLIC_COMMUNITY_LOGO_URL}"`);
		expect(header).toContain(`dir="auto">${NAME}</span></a>`);
		// The logo's site may serve images; nothing else is widened.
		const policy = response.headers.get('content-security-policy') ?? '';
		expect(policy).toMatch(/img-src 'self' data: https:\/\/cdn\.lens\.example(;| )/);
		expect(policy).toMatch(/connect-src 'self'(;|$)/);
	});

	it('the home page lists the community’s links and uses its accent colour', async () => {
		const page = await (await get('/')).text();
		expect(page).toContain('<a href="https://lens.example" rel="noopener"><bdi>Website</bdi></a>');
		expect(page).toContain('<a href="https://discord.gg/lensgarden" rel="noopener"><bdi>Discord</bdi></a>');
		const hrefs = [...page.matchAll(/href="([^"]+\.css)"/g)].map((m) => m[1]!);
		const styles = (await Promise.all(hrefs.map(async (href) => (await get(href)).text()))).join('\n');
		expect(styles).toContain('--accent:#0a7f5a');
	});

	it('an unknown path: the 404 page carries the name too', async () => {
		const response = await get('/no/such/page');
		expect(response.status).toBe(404);
		expect(await response.text()).toContain(`<title>Page not found · ${NAME}</title>`);
	});
});
