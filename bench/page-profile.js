// @ts-check
// One page's server CPU, for a profile: the built portal of a checkout (`--cwd`) on a fresh migrated
// database; one member signs in (and with --apply applies once), then GETs `--path` `--requests` times,
// 4 at a time, as a browser asks a page. Prints the server's CPU ms per request; with BENCH_CPU_PROF=<dir>
// the server writes its profile there (node bench/profile.js <file>).
//
// With --baseline <checkout>, both builds run side by side, each on its own database, and `--blocks`
// blocks of `--requests` alternate between them (the order turned each block): each block's CPU per
// request, each side's median and the median of the blocks' paired ratios. A portal's CPU per request
// falls by half over its first few thousand requests as its code warms; the blocks show it, and the
// alternation cancels the machine's drift that a single pair of runs cannot (bench/README.md "Per-page A/B").
//
//   node bench/page-profile.js [--cwd <checkout>] [--path /apply] [--apply] [--requests 1500] [--admin]
//   node bench/page-profile.js --baseline <checkout> [--blocks 10] [--requests 500] [--path /apply] [--apply] [--admin]
import path from 'node:path';
import { parseArgs } from 'node:util';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createServerDatabase } from '../tests/helpers/postgres.js';
import { httpClient, quantile, signIn, startPortal, treeCpuMs } from './harness.js';

const { values } = parseArgs({
	options: {
		cwd: { type: 'string', default: '.' },
		baseline: { type: 'string' },
		blocks: { type: 'string', default: '10' },
		path: { type: 'string', default: '/apply' },
		apply: { type: 'boolean', default: false },
		admin: { type: 'boolean', default: false },
		requests: { type: 'string' }
	}
});
const REQUESTS = Number(values.requests ?? (values.baseline ? 500 : 1500));
const BLOCKS = Number(values.blocks);
const adminUrl =
	process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A portal of `dir`'s build on its own database, one member signed in (and applied once with --apply). @param {string} dir */
async function prepare(dir) {
	const database = await createServerDatabase(adminUrl, { prefix: 'portal_page', migrate: false });
	const client = postgres(database.url, { max: 1, onnotice: () => {} });
	await migrate(drizzle(client), { migrationsFolder: path.join(dir, 'drizzle') });
	await client.end();
	const account = privateKeyToAccount(generatePrivateKey());
	const portal = await startPortal(
		{ DATABASE_URL: database.url, ...(values.admin ? { ADMIN_ADDRESSES: account.address } : {}) },
		{ cwd: dir }
	);
	const http = httpClient(portal.url, 4);
	const side = { dir, database, portal, http, cookie: '', cpu: /** @type {number[]} */ ([]) };
	const cookie = await signIn(portal.url, /** @type {any} */ (account));
	side.cookie = cookie;
	if (values.apply) {
		const r = await http.request('POST', '/apply', {
			headers: {
				cookie,
				origin: portal.url,
				accept: 'text/html',
				'content-type': 'application/x-www-form-urlencoded'
			},
			body: new URLSearchParams({
				displayName: 'Member',
				motivation: 'I would like to join because '.repeat(8),
				contact: '@member'
			}).toString()
		});
		if (r.status !== 303) throw new Error(`${dir}: POST /apply ${r.status}`);
	}
	return side;
}

/** @typedef {Awaited<ReturnType<typeof prepare>>} Side */

/** `n` GETs of the page, 4 at a time: the server's CPU ms per request. @param {Side} side @param {number} n */
async function block(side, n) {
	const before = treeCpuMs(side.portal.pid);
	let next = 0;
	await Promise.all(
		[0, 1, 2, 3].map(async () => {
			for (let i = next++; i < n; i = next++) {
				const r = await side.http.request('GET', /** @type {string} */ (values.path), {
					headers: { cookie: side.cookie, 'sec-fetch-site': 'same-origin' }
				});
				if (r.status < 200 || r.status > 299) throw new Error(`${side.dir}: GET ${values.path}: ${r.status}`);
			}
		})
	);
	return (treeCpuMs(side.portal.pid) - before) / n;
}

const median = (/** @type {number[]} */ list) =>
	quantile(
		[...list].sort((a, b) => a - b),
		0.5
	);

/** @type {Side[]} */
const sides = [];
try {
	for (const dir of [values.cwd, ...(values.baseline ? [values.baseline] : [])])
		sides.push(await prepare(path.resolve(/** @type {string} */ (dir))));
	for (const side of sides) await block(side, 50); // warm
	if (sides.length === 1) {
		const [side] = /** @type {[Side]} */ (sides);
		console.log(`${side.dir} GET ${values.path}: ${(await block(side, REQUESTS)).toFixed(2)} CPU ms per request`);
	} else {
		for (let b = 0; b < BLOCKS; b++)
			for (const side of b % 2 === 0 ? sides : [...sides].reverse()) side.cpu.push(await block(side, REQUESTS));
		const [mine, theirs] = /** @type {[Side, Side]} */ (sides);
		for (const side of sides)
			console.log(
				`${side.dir} GET ${values.path}: median ${median(side.cpu).toFixed(2)} CPU ms per request; blocks of ${REQUESTS}: ${side.cpu.map((c) => c.toFixed(2)).join(' ')}`
			);
		console.log(
			`median of the blocks' ratios, this / baseline: ${median(mine.cpu.map((c, i) => c / (theirs.cpu[i] ?? NaN))).toFixed(2)}`
		);
	}
} finally {
	for (const side of sides) {
		side.http.close();
		await side.portal.stop();
		await side.database.drop();
	}
}
