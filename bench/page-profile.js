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
// With --post, each request is instead a form POST of `--form` (URL-encoded) to `--path`, as a browser
// sends one (Origin, Accept: text/html), answered 303; the posts go round members signed in beforehand,
// at most `--per-member` each (a write's own daily limit: check-ins 20). `--concurrency` (default 4) is
// how many requests are in flight; 1 times them one at a time, as the soak's sequential medians do.
//
//   node bench/page-profile.js [--cwd <checkout>] [--path /apply] [--apply] [--requests 1500] [--admin]
//   node bench/page-profile.js --baseline <checkout> [--blocks 10] [--requests 500] [--path /apply] [--apply] [--admin]
//   node bench/page-profile.js --baseline <checkout> --post --path /checkin --form 'note=hello' --concurrency 1
//   node bench/page-profile.js --baseline <checkout> --admin --applicants 16 --path '/admin?review=pending'
//
// --applicants N: N more members sign in and apply before the requests, as the soak's do (the admin's table
// then has N rows more).
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
		requests: { type: 'string' },
		post: { type: 'boolean', default: false },
		form: { type: 'string', default: 'note=Checking in' },
		'per-member': { type: 'string', default: '18' },
		concurrency: { type: 'string', default: '4' },
		applicants: { type: 'string', default: '0' }
	}
});
const REQUESTS = Number(values.requests ?? (values.baseline ? 500 : 1500));
const BLOCKS = Number(values.blocks);
const CONCURRENCY = Number(values.concurrency);
const PER_MEMBER = Number(values['per-member']);
const WARM = 50;
// Members enough for every post of the run, each under its write's limit.
const MEMBERS = values.post ? Math.ceil((WARM + REQUESTS * (values.baseline ? BLOCKS : 1)) / PER_MEMBER) : 0;
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
	const side = {
		dir,
		database,
		portal,
		http,
		cookie: '',
		members: /** @type {string[]} */ ([]),
		posts: 0,
		cpu: /** @type {number[]} */ ([])
	};
	const cookie = await signIn(portal.url, /** @type {any} */ (account));
	side.cookie = cookie;
	for (let i = 0; i < MEMBERS; i++)
		side.members.push(await signIn(portal.url, /** @type {any} */ (privateKeyToAccount(generatePrivateKey()))));
	/** @param {string} as @param {number} n */
	const apply = async (as, n) => {
		const r = await http.request('POST', '/apply', {
			headers: {
				cookie: as,
				origin: portal.url,
				accept: 'text/html',
				'content-type': 'application/x-www-form-urlencoded'
			},
			body: new URLSearchParams({
				displayName: `Member ${n}`,
				motivation: 'I would like to join because '.repeat(8),
				contact: `@member${n}`
			}).toString()
		});
		if (r.status !== 303) throw new Error(`${dir}: POST /apply ${r.status}`);
	};
	if (values.apply) await apply(cookie, 0);
	for (let n = 1; n <= Number(values.applicants); n++)
		await apply(await signIn(portal.url, /** @type {any} */ (privateKeyToAccount(generatePrivateKey()))), n);
	return side;
}

/** @typedef {Awaited<ReturnType<typeof prepare>>} Side */

/** One GET of the page, or with --post one post by the next member in turn. @param {Side} side */
async function one(side) {
	if (!values.post) {
		const r = await side.http.request('GET', /** @type {string} */ (values.path), {
			headers: { cookie: side.cookie, 'sec-fetch-site': 'same-origin' }
		});
		if (r.status < 200 || r.status > 299) throw new Error(`${side.dir}: GET ${values.path}: ${r.status}`);
		return;
	}
	const cookie = side.members[Math.floor(side.posts++ / PER_MEMBER)];
	if (!cookie) throw new Error(`${side.dir}: more posts than members to make them`);
	const r = await side.http.request('POST', /** @type {string} */ (values.path), {
		headers: {
			cookie,
			origin: side.portal.url,
			accept: 'text/html',
			'sec-fetch-site': 'same-origin',
			'content-type': 'application/x-www-form-urlencoded'
		},
		body: values.form
	});
	if (r.status !== 303) throw new Error(`${side.dir}: POST ${values.path}: ${r.status}`);
}

/** `n` requests, `--concurrency` at a time: the server's CPU ms per request. @param {Side} side @param {number} n */
async function block(side, n) {
	const before = treeCpuMs(side.portal.pid);
	let next = 0;
	await Promise.all(
		Array.from({ length: CONCURRENCY }, async () => {
			for (let i = next++; i < n; i = next++) await one(side);
		})
	);
	return (treeCpuMs(side.portal.pid) - before) / n;
}

const median = (/** @type {number[]} */ list) =>
	quantile(
		[...list].sort((a, b) => a - b),
		0.5
	);

const what = values.post ? 'POST' : 'GET';
/** @type {Side[]} */
const sides = [];
try {
	for (const dir of [values.cwd, ...(values.baseline ? [values.baseline] : [])])
		sides.push(await prepare(path.resolve(/** @type {string} */ (dir))));
	for (const side of sides) await block(side, WARM);
	if (sides.length === 1) {
		const [side] = /** @type {[Side]} */ (sides);
		console.log(`${side.dir} ${what} ${values.path}: ${(await block(side, REQUESTS)).toFixed(2)} CPU ms per request`);
	} else {
		for (let b = 0; b < BLOCKS; b++)
			for (const side of b % 2 === 0 ? sides : [...sides].reverse()) side.cpu.push(await block(side, REQUESTS));
		const [mine, theirs] = /** @type {[Side, Side]} */ (sides);
		for (const side of sides)
			console.log(
				`${side.dir} ${what} ${values.path}: median ${median(side.cpu).toFixed(2)} CPU ms per request; blocks of ${REQUESTS}: ${side.cpu.map((c) => c.toFixed(2)).join(' ')}`
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
