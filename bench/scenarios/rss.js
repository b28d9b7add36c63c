// @ts-check
// Memory of the server `npm start` runs: its command line from package.json (node, its flags and the
// launcher scripts/start.js, without npm in front) on a fresh data folder, once on the embedded default
// (PGlite) and once with DATABASE_URL on a fresh database of the Postgres server, each through the
// same 1,000 mixed requests: anonymous and signed-in pages and endpoints, real sign-ins, form posts as
// members and the admin page. Start, steady and peak RSS are the kernel's figures for the server's own
// node process (the launcher imports the server; creating PGlite's data folder runs in a child first).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createBenchDatabase, httpClient, memoryOf, quantile, signIn, startPortal } from '../harness.js';

const CONNECTIONS = 8;
const ROUNDS = 10; // of 100 requests each
const PEAK_TARGET_MIB = 300;

/** `npm start`'s node arguments: package.json's "start" script without its leading `node`. */
function startArgs() {
	/** @type {unknown} */
	const json = JSON.parse(readFileSync('package.json', 'utf8'));
	const { scripts } = /** @type {{ scripts: Record<string, string> }} */ (json);
	const [command, ...args] = (scripts.start ?? '').split(/\s+/);
	if (command !== 'node') throw new Error(`npm start is not a node command line: ${scripts.start}`);
	return args;
}

/**
 * One request of the mix: what it sends and the status a browser or client would get.
 * @typedef {{ method: 'GET' | 'POST', path: string, as?: 'member' | 'admin', form?: Record<string, string>, expect: number }} Request
 */

/**
 * The 90 requests of a round besides its 10 sign-ins (20 requests), in a fixed interleaving.
 * @param {number} round
 * @returns {Request[]}
 */
function roundRequests(round) {
	/** @type {[number, (i: number) => Request][]} */
	const kinds = [
		[15, () => ({ method: 'GET', path: '/api/auth/me', expect: 200 })],
		[10, () => ({ method: 'GET', path: '/', expect: 200 })],
		[5, () => ({ method: 'GET', path: '/setup', expect: 200 })],
		[5, () => ({ method: 'GET', path: '/healthz', expect: 200 })],
		[5, () => ({ method: 'GET', path: '/api/auth/nonce', expect: 200 })],
		[10, () => ({ method: 'GET', path: '/apply', as: 'member', expect: 200 })],
		[
			5,
			(i) => ({
				method: 'POST',
				path: '/apply',
				as: 'member',
				form: {
					displayName: `Member ${round}-${i}`,
					motivation: 'I would like to help run the community events.',
					contact: `@member${round}${i}`
				},
				expect: 303
			})
		],
		[10, () => ({ method: 'GET', path: '/checkin', as: 'member', expect: 200 })],
		[
			5,
			(i) => ({ method: 'POST', path: '/checkin', as: 'member', form: { note: `round ${round}, ${i}` }, expect: 303 })
		],
		[
			10,
			(i) => ({
				method: 'GET',
				path: ['/admin', '/admin?review=pending', '/admin?page=2', '/admin?address=0x0'][i % 4] ?? '/admin',
				as: 'admin',
				expect: 200
			})
		]
	];
	// Spread each kind evenly over the round (kind k's i-th request at position (i + 0.5) / count).
	const placed = kinds.flatMap(([count, make], k) =>
		Array.from({ length: count }, (_, i) => ({ at: (i + 0.5) / count + k * 1e-6, request: make(i) }))
	);
	return placed.sort((a, b) => a.at - b.at).map((p) => p.request);
}

/**
 * Starts the launcher on `engine`, sends the mix and reads the server's memory.
 * @param {'pglite' | 'postgres'} engine
 * @param {string} adminUrl
 */
async function measure(engine, adminUrl) {
	const dataDir = mkdtempSync(path.join(tmpdir(), 'portal-bench-rss-'));
	const database = engine === 'postgres' ? await createBenchDatabase(adminUrl) : null;
	const admin = privateKeyToAccount(generatePrivateKey());
	const portal = await startPortal(
		{
			PORTAL_DATA_DIR: dataDir,
			// What `npm start` does with nothing set: a generated secret and the data folder's database.
			SESSION_PASSWORD: undefined,
			PGLITE_DATA_DIR: undefined,
			DATABASE_URL: database?.url,
			ADMIN_ADDRESSES: admin.address
		},
		{ args: startArgs(), profile: false }
	);
	const client = httpClient(portal.url, CONNECTIONS);
	try {
		const start = memoryOf(portal.pid).rss;
		/** @type {string[]} */
		const members = [];
		let adminCookie = '';
		const posts = { apply: 0, checkin: 0 };
		/** @type {number[]} */
		const latencies = [];
		let errors = 0;
		let requests = 0;
		/** @param {() => Promise<unknown>} fn @param {number} count requests it makes */
		const timed = async (fn, count) => {
			const t = performance.now();
			requests += count;
			try {
				await fn();
			} catch (err) {
				errors++;
				if (errors <= 3) console.error(`  rss (${engine}): ${err instanceof Error ? err.message : String(err)}`);
			}
			latencies.push(performance.now() - t);
		};
		/** @param {Request} r */
		const send = async (r) => {
			// Each member posts each form once (the posts run behind the sign-ins, so there are enough members).
			const n = r.method === 'POST' ? posts[r.path === '/apply' ? 'apply' : 'checkin']++ : requests;
			const cookie = r.as === 'admin' ? adminCookie : r.as === 'member' ? (members[n % members.length] ?? '') : '';
			/** @type {Record<string, string>} */
			const headers = {
				accept: r.path.startsWith('/api/') || r.path === '/healthz' ? 'application/json' : 'text/html'
			};
			if (cookie) headers.cookie = cookie;
			if (r.form) {
				headers.origin = portal.url;
				headers['content-type'] = 'application/x-www-form-urlencoded';
			}
			const answer = await client.request(r.method, r.path, {
				headers,
				body: r.form ? new URLSearchParams(r.form).toString() : undefined
			});
			if (answer.status !== r.expect) throw new Error(`${r.method} ${r.path}: ${answer.status}, expected ${r.expect}`);
		};
		const begin = performance.now();
		for (let round = 0; round < ROUNDS; round++) {
			// 10 real sign-ins (nonce + verify, 2 requests each); the very first is the admin's.
			await Promise.all(
				Array.from({ length: 10 }, (_, i) =>
					timed(async () => {
						const account = round === 0 && i === 0 ? admin : privateKeyToAccount(generatePrivateKey());
						const cookie = await signIn(portal.url, account);
						if (account === admin) adminCookie = cookie;
						else members.push(cookie);
					}, 2)
				)
			);
			const queue = roundRequests(round);
			await Promise.all(
				Array.from({ length: CONNECTIONS }, async () => {
					for (let r; (r = queue.shift());) {
						const request = r;
						await timed(() => send(request), 1);
					}
				})
			);
		}
		const seconds = (performance.now() - begin) / 1000;
		await new Promise((resolve) => setTimeout(resolve, 3000));
		const { rss: steady, peak } = memoryOf(portal.pid);
		latencies.sort((a, b) => a - b);
		return {
			start,
			steady,
			peak,
			requests,
			rps: requests / seconds,
			p50: quantile(latencies, 0.5),
			p99: quantile(latencies, 0.99),
			errors
		};
	} finally {
		client.close();
		await portal.stop();
		await database?.drop();
		rmSync(dataDir, { recursive: true, force: true });
	}
}

/**
 * The peak RSS (MiB) of a node process that only creates a PGlite data folder, as the launcher's
 * child does on a first start.
 */
function initdbPeakMiB() {
	const dataDir = mkdtempSync(path.join(tmpdir(), 'portal-bench-initdb-'));
	try {
		const script = `const { createPglite } = await import(${JSON.stringify(path.resolve('scripts/create-pglite.js'))});
			await createPglite(${JSON.stringify(path.join(dataDir, 'pglite'))});
			console.log(process.resourceUsage().maxRSS);`;
		const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
		return Number(out.trim()) / 1024;
	} finally {
		rmSync(dataDir, { recursive: true, force: true });
	}
}

/** @type {import('../harness.js').Scenario} */
export default async function rss({ adminUrl }) {
	/** @type {import('../harness.js').Row[]} */
	const rows = [];
	for (const engine of /** @type {const} */ (['pglite', 'postgres'])) {
		const m = await measure(engine, adminUrl);
		const mib = (/** @type {number} */ n) => n.toFixed(0);
		rows.push({
			name:
				`embedded default RSS: npm start's launcher on ${engine === 'pglite' ? 'PGlite (fresh data folder)' : 'the Postgres server (fresh database)'}, ` +
				`${m.requests} mixed requests, ${CONNECTIONS} conns: start ${mib(m.start)} / steady ${mib(m.steady)} / peak ${mib(m.peak)} MiB`,
			rps: m.rps,
			p50: m.p50,
			p99: m.p99,
			errors: m.errors,
			rss: m.peak,
			target:
				engine === 'pglite'
					? `peak <= ${PEAK_TARGET_MIB} MiB: ${m.peak <= PEAK_TARGET_MIB ? 'met' : 'MISSED'}`
					: 'reference (same build, same requests)'
		});
	}
	rows.push({
		name: `first start only: creating PGlite's data folder (scripts/create-pglite.js, a child process of the launcher that exits before the server starts): peak ${initdbPeakMiB().toFixed(0)} MiB`,
		target: 'none (once; vite build peaks higher)'
	});
	return rows;
}
