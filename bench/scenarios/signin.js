// @ts-check
// Sign-ins per second over HTTP: nonce + verify with a fresh signature each, against bare viem
// signature recovery in this process. Nonces are fetched and messages signed before each timed
// batch; only the verify requests are timed (each carries its own nonce cookie).
// Then, in one process through vitest bench (it imports the TypeScript of verifySignIn), what a
// sign-in costs without HTTP and the database: bench/auth-signin.bench.ts.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { recoverMessageAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { alternate, fetchNonce, httpClient, loop, quantile, siweMessage, startPortal } from '../harness.js';

/** @typedef {import('../harness.js').Account} Account */

const CONCURRENCY = 8;
const BATCH = 100;

/** @type {import('../harness.js').Scenario} */
export default async function signin({ databaseUrl, engine, seconds, rounds }) {
	/** @type {import('../harness.js').Row[]} */
	const rows = [];
	const accounts = Array.from({ length: CONCURRENCY }, () => privateKeyToAccount(generatePrivateKey()));
	const portal = await startPortal(engine === 'postgres' ? { DATABASE_URL: databaseUrl } : {});
	const client = httpClient(portal.url, CONCURRENCY);
	try {
		/**
		 * Pre-signed verify requests, each with its own nonce cookie (untimed).
		 * @param {number} count
		 */
		const prepare = async (count) => {
			/** @type {{ cookie: string, body: string }[]} */
			const items = [];
			await Promise.all(
				Array.from({ length: CONCURRENCY }, async (_, w) => {
					for (let i = w; i < count; i += CONCURRENCY) {
						const { nonce, cookie } = await fetchNonce(portal.url);
						const account = /** @type {Account} */ (accounts[i % accounts.length]);
						const message = siweMessage(portal.url, account.address, nonce);
						items.push({
							cookie,
							body: JSON.stringify({ message, signature: await account.signMessage({ message }) })
						});
					}
				})
			);
			return items;
		};
		/** @param {{ cookie: string, body: string }} item */
		const verify = async ({ cookie, body }) => {
			const r = await client.request('POST', '/api/auth/verify', {
				headers: { 'content-type': 'application/json', cookie },
				body
			});
			if (r.status !== 200) throw new Error(`verify ${r.status}: ${r.text}`);
		};
		/** Batches of BATCH verifies until `seconds` of timed work; latencies of the verifies only. */
		/** @returns {Promise<import('../harness.js').Rate>} */
		const http = async () => {
			/** @type {number[]} */
			const latencies = [];
			let errors = 0;
			let timed = 0;
			while (timed < seconds * 1000) {
				const items = await prepare(BATCH);
				const started = performance.now();
				await Promise.all(
					Array.from({ length: CONCURRENCY }, async () => {
						for (let item; (item = items.pop());) {
							const t = performance.now();
							await verify(item).catch(() => errors++);
							latencies.push(performance.now() - t);
						}
					})
				);
				timed += performance.now() - started;
			}
			latencies.sort((a, b) => a - b);
			return {
				rps: latencies.length / (timed / 1000),
				p50: quantile(latencies, 0.5),
				p99: quantile(latencies, 0.99),
				errors
			};
		};
		const [fixed] = await prepare(1);
		if (!fixed) throw new Error('no verify request prepared');
		/** @type {unknown} */
		const signed = JSON.parse(fixed.body);
		const { message, signature } = /** @type {{ message: string, signature: `0x${string}` }} */ (signed);
		const bare = () => loop(() => recoverMessageAddress({ message, signature }), { seconds, concurrency: 1 });
		await verify(fixed); // warm-up (and the member row exists from here on)
		const m = await alternate(rounds, { bare, http });
		rows.push({
			name: `sign-ins over HTTP (nonce fetched before, POST /api/auth/verify timed), ${CONCURRENCY} conns (vs bare viem recovery in one process)`,
			...m.http,
			rss: portal.peakRssMiB(),
			baseline: m.bare,
			target: 'ratio >= 0.7'
		});
	} finally {
		client.close();
		await portal.stop();
	}

	const dir = mkdtempSync(path.join(tmpdir(), 'portal-bench-auth-'));
	try {
		const out = path.join(dir, 'signin.json');
		execFileSync('npx', ['vitest', 'bench', '--run', 'bench/auth-signin.bench.ts', '--outputJson', out], {
			env: { ...process.env, BENCH_SECONDS: String(seconds) },
			stdio: ['ignore', 'ignore', 'inherit']
		});
		/** @typedef {{ name: string, hz: number, median: number, p99: number }} Benchmark */
		/** @type {unknown} */
		const json = JSON.parse(readFileSync(out, 'utf8'));
		const report = /** @type {{ files: { groups: { benchmarks: Benchmark[] }[] }[] }} */ (json);
		const benchmarks = report.files.flatMap((f) => f.groups.flatMap((g) => g.benchmarks));
		// The baseline ran first and last; the mean of both is the reference.
		const runs = benchmarks.filter((b) => b.name.startsWith('bare viem'));
		/** @param {'hz' | 'median' | 'p99'} key */
		const mean = (key) => runs.reduce((sum, b) => sum + b[key], 0) / runs.length;
		const recovery = { rps: mean('hz'), p50: mean('median'), p99: mean('p99'), errors: 0 };
		for (const b of benchmarks.filter((b) => !runs.includes(b))) {
			rows.push({
				name: `${b.name}, in process (vs bare viem recovery)`,
				rps: b.hz,
				p50: b.median,
				p99: b.p99,
				errors: 0,
				baseline: recovery,
				target: 'ratio >= 0.7'
			});
		}
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
	return rows;
}
