// @ts-check
// A/B of this checkout's build against another checkout's (a `git worktree` of an earlier commit, built
// there with `npm run build`): each portal on its own database on the Postgres server, migrated with its
// own checkout's migrations, loaded in alternating rounds from this process; each pair of rounds runs
// back to back, so its ratio is the one to read on a shared machine (bench/README.md, "A/B runs (`bench/ab.js`)").
//
//   node bench/ab.js --baseline ../perf-base [--only me,checkin] [--seconds 4] [--rounds 5] [--members 400]
// With BENCH_CPU_PROF=<dir> both servers are profiled (--members 1 keeps sign-ins out of a `me` profile).
//
// me: GET /api/auth/me with a valid session cookie, 32 connections (the `auth` scenario's load).
// checkin: POST /checkin as a browser's form sends it, 400 members, 16 connections (the `checkin` scenario's).
// verify: POST /api/auth/verify, verify-cost's "normal sign-in" (one signed message replayed with its nonce
// cookie: parse, rules, recovery, upsert, new cookie), sequential on one connection; read its CPU per request.
// signin: real sign-ins, nonce + verify with a fresh key and a fresh nonce each, 8 connections, in batches of
// 100 (the `signin` scenario's connections and batch): a batch's nonces are fetched (GET /api/auth/nonce,
// timed), its messages signed in this process (untimed), then its verifies sent (timed); the rate is
// sign-ins per timed second, and the CPU per request is per sign-in (its two requests).
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createServerDatabase } from '../tests/helpers/postgres.js';
import { backendsCpu, fetchNonce, httpClient, loop, quantile, siweMessage, signIn, startPortal } from './harness.js';

const { values } = parseArgs({
	options: {
		baseline: { type: 'string' },
		only: { type: 'string', default: 'me,checkin' },
		seconds: { type: 'string', default: '4' },
		rounds: { type: 'string', default: '5' },
		members: { type: 'string', default: '400' }
	}
});
if (!values.baseline) throw new Error('--baseline <checkout with a build/> is required');
const sides = /** @type {const} */ ([
	['this', process.cwd()],
	['baseline', path.resolve(values.baseline)]
]);
for (const [, dir] of sides)
	if (!existsSync(path.join(dir, 'build/index.js'))) throw new Error(`${dir}: no build/index.js (npm run build there)`);
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const adminUrl =
	process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const MEMBERS = Number(values.members); // signed in on each side before the rounds (check-in spreads over them)
const TICKS_PER_MS = 100 / 1000; // USER_HZ, as Linux reports utime and stime
// Reads which Postgres backends serve each side's database (their CPU per request, from /proc).
const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });

/** CPU time (user + system) the process `pid` has used, in ms. @param {number} pid */
function cpuMs(pid) {
	const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
	return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_MS;
}

/** @param {string} url @param {string} dir */
async function migrateWith(url, dir) {
	const client = postgres(url, { max: 1, onnotice: () => {} });
	try {
		await migrate(drizzle(client), { migrationsFolder: path.join(dir, 'drizzle') });
	} finally {
		await client.end();
	}
}

/**
 * One side: its database, its portal and what each load needs (cookies signed in through its own endpoints).
 * @param {string} dir
 */
async function prepare(dir) {
	const database = await createServerDatabase(adminUrl, { prefix: 'portal_ab', migrate: false });
	await migrateWith(database.url, dir);
	const portal = await startPortal({ DATABASE_URL: database.url }, { cwd: dir });
	const accounts = Array.from({ length: MEMBERS }, () => privateKeyToAccount(generatePrivateKey()));
	/** @type {string[]} */
	const cookies = [];
	await Promise.all(
		Array.from({ length: 8 }, async (_, w) => {
			for (let i = w; i < MEMBERS; i += 8) cookies[i] = await signIn(portal.url, /** @type {any} */ (accounts[i]));
		})
	);
	// The session check must answer as signed in, not with the anonymous 200 a lost cookie also gets.
	if (cookies[0]) {
		const me = await fetch(`${portal.url}/api/auth/me`, { headers: { cookie: cookies[0] } });
		const text = await me.text();
		const address = accounts[0]?.address.slice(2).toLowerCase() ?? '';
		if (me.status !== 200 || !text.toLowerCase().includes(address))
			throw new Error(`${dir}: /api/auth/me does not see the sign-in: ${me.status} ${text}`);
	}
	return { database, portal, cookies };
}

/** @type {Record<string, (side: Awaited<ReturnType<typeof prepare>>) => () => Promise<import('./harness.js').Rate & { count?: number }>>} */
const loads = {
	me: ({ portal, cookies }) => {
		const client = httpClient(portal.url, 32);
		const cookie = cookies[0] ?? '';
		return () => loop(() => client.get('/api/auth/me', { cookie }), { seconds, concurrency: 32 });
	},
	verify: ({ portal }) => {
		const client = httpClient(portal.url, 1);
		const account = privateKeyToAccount(generatePrivateKey());
		/** @type {Promise<{ cookie: string, body: string }>} */
		const signed = fetchNonce(portal.url).then(async ({ nonce, cookie }) => {
			const message = siweMessage(portal.url, account.address, nonce);
			return { cookie, body: JSON.stringify({ message, signature: await account.signMessage({ message }) }) };
		});
		return async () => {
			const { cookie, body } = await signed;
			return loop(
				async () => {
					const r = await client.request('POST', '/api/auth/verify', {
						headers: { 'content-type': 'application/json', cookie },
						body
					});
					if (r.status !== 200) throw new Error(`verify ${r.status}`);
				},
				{ seconds, concurrency: 1 }
			);
		};
	},
	signin: ({ portal }) => {
		const CONNECTIONS = 8;
		const BATCH = 100;
		const client = httpClient(portal.url, CONNECTIONS);
		/**
		 * `n` calls of fn over CONNECTIONS workers: latencies, errors, wall time.
		 * @param {(i: number) => Promise<unknown>} fn
		 * @param {number} n
		 */
		const spread = async (fn, n) => {
			/** @type {number[]} */
			const latencies = [];
			let errors = 0;
			let next = 0;
			const started = performance.now();
			await Promise.all(
				Array.from({ length: CONNECTIONS }, async () => {
					for (let i; (i = next++) < n;) {
						const t = performance.now();
						await fn(i).catch(() => errors++);
						latencies[i] = performance.now() - t;
					}
				})
			);
			return { latencies, errors, ms: performance.now() - started };
		};
		return async () => {
			/** @type {number[]} */
			const latencies = [];
			let errors = 0;
			let timed = 0;
			let count = 0;
			while (timed < seconds * 1000) {
				const accounts = Array.from({ length: BATCH }, () => privateKeyToAccount(generatePrivateKey()));
				/** @type {{ nonce: string, cookie: string }[]} */
				const nonces = [];
				const fetched = await spread(async (i) => {
					const r = await client.request('GET', '/api/auth/nonce');
					if (r.status !== 200) throw new Error(`nonce ${r.status}`);
					const setCookie = r.headers['set-cookie']?.[0]?.split(';')[0];
					if (!setCookie) throw new Error('nonce: no Set-Cookie');
					/** @type {unknown} */
					const body = JSON.parse(r.text);
					nonces[i] = { nonce: /** @type {{ nonce: string }} */ (body).nonce, cookie: setCookie };
				}, BATCH);
				// Untimed: each message names its own nonce.
				const signed = await Promise.all(
					accounts.map(async (account, i) => {
						const got = nonces[i];
						if (!got) return undefined;
						const message = siweMessage(portal.url, account.address, got.nonce);
						return {
							cookie: got.cookie,
							body: JSON.stringify({ message, signature: await account.signMessage({ message }) })
						};
					})
				);
				const verified = await spread(async (i) => {
					const item = signed[i];
					if (!item) throw new Error('no nonce');
					const r = await client.request('POST', '/api/auth/verify', {
						headers: { 'content-type': 'application/json', cookie: item.cookie },
						body: item.body
					});
					if (r.status !== 200) throw new Error(`verify ${r.status}`);
				}, BATCH);
				timed += fetched.ms + verified.ms;
				count += BATCH;
				errors += fetched.errors + verified.errors;
				// A sign-in's latency: its nonce request's and its verify request's.
				for (let i = 0; i < BATCH; i++) latencies.push((fetched.latencies[i] ?? 0) + (verified.latencies[i] ?? 0));
			}
			latencies.sort((a, b) => a - b);
			return {
				rps: count / (timed / 1000),
				p50: quantile(latencies, 0.5),
				p99: quantile(latencies, 0.99),
				errors,
				count
			};
		};
	},
	checkin: ({ portal, cookies }) => {
		const client = httpClient(portal.url, 16);
		let next = 0;
		return () =>
			loop(
				async () => {
					const n = next++;
					const r = await client.request('POST', '/checkin', {
						headers: {
							origin: portal.url,
							accept: 'text/html',
							'content-type': 'application/x-www-form-urlencoded',
							cookie: cookies[n % MEMBERS] ?? ''
						},
						body: `note=${encodeURIComponent(`ab check-in ${n}`)}`
					});
					if (r.status !== 303) throw new Error(`checkin ${r.status}`);
				},
				{ seconds, concurrency: 16 }
			);
	}
};

const started = performance.now();
const prepared = [];
try {
	for (const [name, dir] of sides) prepared.push({ name, dir, ...(await prepare(dir)) });
	const lines = [];
	for (const load of (values.only ?? '').split(',')) {
		const make = loads[load];
		if (!make) throw new Error(`unknown load ${load}; known: ${Object.keys(loads).join(', ')}`);
		// Each round also reads its server's CPU time: CPU per request, less noisy than rates on a shared machine.
		const runs = prepared.map((side) => {
			const run = make(side);
			return async () => {
				const cpu = cpuMs(side.portal.pid);
				const pgBefore = await backendsCpu(admin, side.database.name);
				const started = performance.now();
				const rate = await run();
				// A load whose rounds include untimed work (signin signs between its timed phases) counts its own operations.
				const requests = rate.count ?? (rate.rps * (performance.now() - started)) / 1000;
				let pg = 0;
				for (const [pid, ms] of await backendsCpu(admin, side.database.name)) pg += ms - (pgBefore.get(pid) ?? 0);
				return { ...rate, cpu: (cpuMs(side.portal.pid) - cpu) / requests, pg: pg / requests };
			};
		});
		for (const run of runs) await run(); // warm-up
		/** @type {(import('./harness.js').Rate & { cpu: number, pg: number })[][]} */
		const results = runs.map(() => []);
		for (let round = 0; round < rounds; round++) {
			// The order within a pair alternates, so neither side always runs second.
			const order = round % 2 === 0 ? [0, 1] : [1, 0];
			for (const i of order) {
				const run = runs[i];
				if (run) results[i]?.push(await run());
			}
		}
		const [mine = [], theirs = []] = results;
		const pairs = mine.map((r, i) => r.rps / (theirs[i]?.rps ?? NaN)).sort((a, b) => a - b);
		const median = (/** @type {number[]} */ list) =>
			quantile(
				[...list].sort((a, b) => a - b),
				0.5
			);
		lines.push(
			`${load}: this ${median(mine.map((r) => r.rps)).toFixed(0)} req/s (p50 ${median(mine.map((r) => r.p50)).toFixed(2)} ms, errors ${mine.reduce((s, r) => s + r.errors, 0)}), ` +
				`baseline ${median(theirs.map((r) => r.rps)).toFixed(0)} req/s (p50 ${median(theirs.map((r) => r.p50)).toFixed(2)} ms, errors ${theirs.reduce((s, r) => s + r.errors, 0)}); ` +
				`pairs ${pairs.map((p) => p.toFixed(2)).join(', ')}, median ${median(pairs).toFixed(2)}; ` +
				`server CPU per request ${median(mine.map((r) => r.cpu)).toFixed(3)} / ${median(theirs.map((r) => r.cpu)).toFixed(3)} ms ` +
				`(ratio ${(median(theirs.map((r) => r.cpu)) / median(mine.map((r) => r.cpu))).toFixed(2)}); ` +
				`Postgres CPU per request ${median(mine.map((r) => r.pg)).toFixed(3)} / ${median(theirs.map((r) => r.pg)).toFixed(3)} ms`
		);
	}
	const load = os
		.loadavg()
		.map((l) => l.toFixed(1))
		.join(' ');
	console.log(
		`A/B against ${values.baseline}: ${rounds} alternating rounds of ${seconds} s, load average ${load}, ${((performance.now() - started) / 1000).toFixed(0)} s`
	);
	for (const line of lines) console.log(line);
} finally {
	for (const side of prepared) {
		await side.portal.stop();
		await side.database.drop();
	}
	await admin.end();
}
