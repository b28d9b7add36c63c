// @ts-check
// Mixed traffic, A/B: this checkout's build against another checkout's (a `git worktree` of an earlier
// commit, built there), each on its own migrated database, in alternating rounds (bench/README.md, "Other bench commands").
//
//   node bench/soak.js --baseline /tmp/base [--seconds 45] [--rounds 2] [--members 16] [--sequential 40] [--cpu 300] [--restarts 1]
//
// Each side: `--members` members sign in through the real endpoints and apply once (POST /apply, the
// built-in questions), and an admin (ADMIN_ADDRESSES) signs in. A soak round: every member loops
// GET /api/auth/me then GET /apply, with POST /checkin every 10th loop (303, or 429 once the day's 20
// are spent: both are answers) and GET /api/community-pulse every 5th; the admin loops
// GET /admin?review=pending. Pages are asked as a browser asks them (Sec-Fetch-Site same-origin; a
// post with the portal's Origin). Then, per side, the sequential medians of POST /checkin (fresh
// members, so each is a 303) and GET /apply, alternating request by request between the sides. The
// server's CPU per request (/proc, user + system) is printed for each round and, `--cpu` requests each,
// for each kind of request alone: the figure the machine's other load changes least.
//
// A portal process keeps the code its JIT compiled, and how well it did, for as long as it runs: two runs
// of the same builds differed by 0.10 in their median ratio, more than the rounds within one run
// (bench/README.md). `--restarts N` splits the rounds into N groups and starts both portals afresh (same
// databases and members, a 5-second warm-up round each) before every group after the first, so one run's
// median is over N pairs of processes, and each pair's own median is printed beside it.
import os from 'node:os';
import path from 'node:path';
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createServerDatabase } from '../tests/helpers/postgres.js';
import { backendsCpu, httpClient, quantile, signIn, startPortal, treeCpuMs } from './harness.js';

const { values } = parseArgs({
	options: {
		baseline: { type: 'string' },
		seconds: { type: 'string', default: '45' },
		rounds: { type: 'string', default: '2' },
		members: { type: 'string', default: '16' },
		sequential: { type: 'string', default: '40' },
		cpu: { type: 'string', default: '300' },
		restarts: { type: 'string', default: '1' }
	}
});
if (!values.baseline) throw new Error('--baseline <checkout with a build/> is required');
const sides = /** @type {const} */ ([
	['this', process.cwd()],
	['baseline', path.resolve(values.baseline)]
]);
for (const [, dir] of sides)
	if (!existsSync(path.join(dir, 'build/index.js'))) throw new Error(`${dir}: no build/index.js (build it there)`);
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const MEMBERS = Number(values.members);
const SEQUENTIAL = Number(values.sequential);
const CPU_REQUESTS = Number(values.cpu);
const RESTARTS = Math.max(1, Number(values.restarts));
const adminUrl =
	process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
// Reads pg_stat_activity for each side's backends: PostgreSQL's CPU shares the machine with the portal's.
const observer = postgres(adminUrl, { max: 1, onnotice: () => {} });

/** CPU ms spent by `name`'s backends since `before` (a backendsCpu snapshot): those that lived through. @param {string} name @param {Map<number, number>} before */
async function backendsCpuSince(name, before) {
	const after = await backendsCpu(observer, name);
	let ms = 0;
	for (const [pid, cpu] of after) ms += cpu - (before.get(pid) ?? 0);
	return ms;
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

/** @param {string} dir */
async function prepare(dir) {
	const database = await createServerDatabase(adminUrl, { prefix: 'portal_soak', migrate: false });
	await migrateWith(database.url, dir);
	const admin = privateKeyToAccount(generatePrivateKey());
	const start = () => startPortal({ DATABASE_URL: database.url, ADMIN_ADDRESSES: admin.address }, { cwd: dir });
	// Replaced by restart(): a new process on a new port, the same database (and so the same members).
	const first = await start();
	const live = { portal: first, client: httpClient(first.url, MEMBERS + 2) };
	const restart = async () => {
		live.client.close();
		await live.portal.stop();
		live.portal = await start();
		live.client = httpClient(live.portal.url, MEMBERS + 2);
	};
	/** @param {string} p @param {string} cookie @param {Record<string, string>} form */
	const post = (p, cookie, form) =>
		live.client.request('POST', p, {
			headers: {
				cookie,
				origin: live.portal.url,
				accept: 'text/html',
				'content-type': 'application/x-www-form-urlencoded'
			},
			body: new URLSearchParams(form).toString()
		});
	/** @param {string} p @param {string} cookie */
	const page = (p, cookie) => live.client.request('GET', p, { headers: { cookie, 'sec-fetch-site': 'same-origin' } });
	const signed = async () => signIn(live.portal.url, /** @type {any} */ (privateKeyToAccount(generatePrivateKey())));
	/** @type {string[]} */
	const members = [];
	for (let i = 0; i < MEMBERS; i++) {
		const cookie = await signed();
		const r = await post('/apply', cookie, {
			displayName: `Member ${i}`,
			motivation: 'I would like to join because '.repeat(8),
			contact: `@member${i}`
		});
		if (r.status !== 303) throw new Error(`${dir}: POST /apply ${r.status}`);
		members.push(cookie);
	}
	const adminCookie = await signIn(live.portal.url, /** @type {any} */ (admin));
	const table = await page('/admin?review=pending', adminCookie);
	if (table.status !== 200) throw new Error(`${dir}: /admin ${table.status}`);
	// Fresh members for the sequential check-ins (each a 303: the day's 20 are not reached).
	/** @type {string[]} */
	const fresh = [];
	for (let i = 0; i < Math.ceil(SEQUENTIAL / 10) + 1; i++) fresh.push(await signed());
	return {
		dir,
		database,
		live,
		restart,
		get portal() {
			return live.portal;
		},
		get client() {
			return live.client;
		},
		post,
		page,
		members,
		adminCookie,
		fresh
	};
}

/** @typedef {Awaited<ReturnType<typeof prepare>>} Side */

/** One soak round of `seconds` on `side`: requests/s, p50/p99, statuses. @param {Side} side */
async function soak(side, secondsOf = seconds) {
	/** @type {number[]} */
	const latencies = [];
	/** @type {Record<string, number>} */
	const statuses = {};
	const deadline = performance.now() + secondsOf * 1000;
	/** @type {Record<string, number[]>} */
	const byPath = {};
	/** @param {() => Promise<{ status: number }>} send @param {number[]} ok @param {string} label */
	const timed = async (send, ok, label) => {
		const t = performance.now();
		const r = await send();
		const ms = performance.now() - t;
		latencies.push(ms);
		(byPath[label] ??= []).push(ms);
		const key = ok.includes(r.status) ? String(r.status) : `bad ${r.status}`;
		statuses[key] = (statuses[key] ?? 0) + 1;
	};
	const started = performance.now();
	const cpuBefore = treeCpuMs(side.portal.pid);
	const databaseBefore = await backendsCpu(observer, side.database.name);
	await Promise.all([
		...side.members.map(async (cookie, m) => {
			for (let round = 1; performance.now() < deadline; round++) {
				await timed(() => side.client.request('GET', '/api/auth/me', { headers: { cookie } }), [200], 'me');
				await timed(() => side.page('/apply', cookie), [200], 'apply');
				if (round % 10 === 0)
					await timed(() => side.post('/checkin', cookie, { note: `soak ${m} ${round}` }), [303, 429], 'checkin');
				if (round % 5 === 0)
					await timed(() => side.client.request('GET', '/api/community-pulse'), [200, 204, 503], 'pulse');
			}
		}),
		(async () => {
			while (performance.now() < deadline)
				await timed(() => side.page('/admin?review=pending', side.adminCookie), [200], 'admin');
		})()
	]);
	const wall = (performance.now() - started) / 1000;
	const cpuMs = treeCpuMs(side.portal.pid) - cpuBefore;
	const databaseMs = await backendsCpuSince(side.database.name, databaseBefore);
	latencies.sort((a, b) => a - b);
	return {
		rps: latencies.length / wall,
		// The server's CPU (user + system) per request: what the machine's other load does not change much.
		cpuPerRequest: cpuMs / latencies.length,
		// PostgreSQL's, on the same cores: the machine's cost of a request is both.
		databaseCpuPerRequest: databaseMs / latencies.length,
		p50: quantile(latencies, 0.5),
		p99: quantile(latencies, 0.99),
		statuses,
		// Each kind's median latency, ms.
		medians: Object.fromEntries(
			Object.entries(byPath).map(([k, v]) => [
				k,
				Number(
					quantile(
						v.sort((a, b) => a - b),
						0.5
					).toFixed(1)
				)
			])
		)
	};
}

const started = performance.now();
/** @type {Side[]} */
const prepared = [];
try {
	for (const [, dir] of sides) prepared.push(await prepare(dir));
	// Warm-up: a 5-second round each.
	for (const side of prepared) await soak(side, 5);
	/** @type {Awaited<ReturnType<typeof soak>>[][]} */
	const results = [[], []];
	for (let round = 0; round < rounds; round++) {
		if (round > 0 && round % Math.ceil(rounds / RESTARTS) === 0)
			for (const side of prepared) {
				await side.restart();
				await soak(side, 5);
			}
		const order = round % 2 === 0 ? [0, 1] : [1, 0];
		for (const i of order) {
			const side = prepared[i];
			if (side) results[i]?.push(await soak(side));
		}
	}
	// The server's CPU per request of each kind, sides alternating kind by kind: CPU_REQUESTS requests, 4 at a time.
	/** @type {Record<string, number>[]} */
	const cpuByKind = prepared.map(() => ({}));
	/** @type {[string, (side: Side, n: number) => Promise<{ status: number }>][]} */
	const kinds = [
		[
			'me',
			(side, n) => side.client.request('GET', '/api/auth/me', { headers: { cookie: side.members[n % MEMBERS] ?? '' } })
		],
		['apply', (side, n) => side.page('/apply', side.members[n % MEMBERS] ?? '')],
		['admin', (side) => side.page('/admin?review=pending', side.adminCookie)],
		['pulse', (side) => side.client.request('GET', '/api/community-pulse')]
	];
	if (CPU_REQUESTS > 0)
		for (const [kind, send] of kinds)
			for (const i of [0, 1]) {
				const side = /** @type {Side} */ (prepared[i]);
				const before = treeCpuMs(side.portal.pid);
				let next = 0;
				await Promise.all(
					[0, 1, 2, 3].map(async () => {
						for (let n = next++; n < CPU_REQUESTS; n = next++) await send(side, n);
					})
				);
				/** @type {Record<string, number>} */ (cpuByKind[i])[kind] = Number(
					((treeCpuMs(side.portal.pid) - before) / CPU_REQUESTS).toFixed(2)
				);
			}
	// Sequential: one request at a time, alternating between the sides request by request.
	/** @type {{ checkin: number[], apply: number[] }[]} */
	const sequential = prepared.map(() => ({ checkin: [], apply: [] }));
	for (let n = 0; n < SEQUENTIAL; n++) {
		for (const i of n % 2 === 0 ? [0, 1] : [1, 0]) {
			const side = /** @type {Side} */ (prepared[i]);
			const into = /** @type {{ checkin: number[], apply: number[] }} */ (sequential[i]);
			const member = side.fresh[Math.floor(n / 10)] ?? '';
			let t = performance.now();
			const c = await side.post('/checkin', member, { note: `sequential ${n}` });
			if (c.status !== 303) throw new Error(`${side.dir}: sequential POST /checkin ${c.status}`);
			into.checkin.push(performance.now() - t);
			t = performance.now();
			const a = await side.page('/apply', side.members[n % MEMBERS] ?? '');
			if (a.status !== 200) throw new Error(`${side.dir}: sequential GET /apply ${a.status}`);
			into.apply.push(performance.now() - t);
		}
	}
	const median = (/** @type {number[]} */ list) =>
		quantile(
			[...list].sort((a, b) => a - b),
			0.5
		);
	const load = os
		.loadavg()
		.map((l) => l.toFixed(1))
		.join(' ');
	console.log(
		`soak A/B against ${values.baseline}: ${MEMBERS} members + 1 admin, ${rounds} alternating rounds of ${seconds} s over ${RESTARTS} pair(s) of processes, load average ${load}, ${((performance.now() - started) / 1000).toFixed(0)} s`
	);
	const [mine = [], theirs = []] = results;
	for (let r = 0; r < rounds; r++) {
		const a = mine[r];
		const b = theirs[r];
		if (!a || !b) continue;
		console.log(
			`round ${r + 1}: this ${a.rps.toFixed(0)} req/s (${a.cpuPerRequest.toFixed(2)} CPU ms/request, database ${a.databaseCpuPerRequest.toFixed(2)}; p50 ${a.p50.toFixed(1)}, p99 ${a.p99.toFixed(1)} ms; ${JSON.stringify(a.statuses)}; medians ${JSON.stringify(a.medians)}), ` +
				`baseline ${b.rps.toFixed(0)} req/s (${b.cpuPerRequest.toFixed(2)} CPU ms/request, database ${b.databaseCpuPerRequest.toFixed(2)}; p50 ${b.p50.toFixed(1)}, p99 ${b.p99.toFixed(1)} ms; ${JSON.stringify(b.statuses)}; medians ${JSON.stringify(b.medians)}); ratio ${(a.rps / b.rps).toFixed(2)}`
		);
	}
	const roundRatios = mine.map((a, r) => a.rps / (theirs[r]?.rps ?? NaN));
	const ratios = roundRatios.filter(Number.isFinite).sort((x, y) => x - y);
	// Each pair of processes keeps what its JIT made of the code for its rounds: its own median says whether
	// one pair carried the run (the groups are the rounds between restarts, as the loop above makes them).
	const perGroup = Math.ceil(rounds / RESTARTS);
	const byPair = Array.from({ length: Math.ceil(rounds / perGroup) }, (_, g) =>
		median(roundRatios.slice(g * perGroup, (g + 1) * perGroup).filter(Number.isFinite))
	);
	const cpuOf = (/** @type {typeof mine} */ list) => median(list.map((a) => a.cpuPerRequest));
	if (ratios.length > 0)
		console.log(
			`median of the rounds' ratios ${quantile(ratios, 0.5).toFixed(2)} (quartiles ${quantile(ratios, 0.25).toFixed(2)}-${quantile(ratios, 0.75).toFixed(2)}); ` +
				`server CPU ms per request, median by round: this ${cpuOf(mine).toFixed(2)}, baseline ${cpuOf(theirs).toFixed(2)}`
		);
	if (RESTARTS > 1) console.log(`median ratio by pair of processes: ${byPair.map((m) => m.toFixed(2)).join(', ')}`);
	if (CPU_REQUESTS > 0)
		console.log(
			`server CPU ms per request, ${CPU_REQUESTS} each, 4 at a time: this ${JSON.stringify(cpuByKind[0])}, baseline ${JSON.stringify(cpuByKind[1])}`
		);
	const [s0, s1] = sequential;
	if (s0 && s1)
		console.log(
			`sequential medians (${SEQUENTIAL} each): POST /checkin this ${median(s0.checkin).toFixed(2)} ms, baseline ${median(s1.checkin).toFixed(2)} ms (${(median(s0.checkin) / median(s1.checkin)).toFixed(2)}x); ` +
				`GET /apply this ${median(s0.apply).toFixed(2)} ms, baseline ${median(s1.apply).toFixed(2)} ms (${(median(s0.apply) / median(s1.apply)).toFixed(2)}x)`
		);
} finally {
	for (const side of prepared) {
		side.live.client.close();
		await side.live.portal.stop();
		await side.database.drop();
	}
	await observer.end();
}
