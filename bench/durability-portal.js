// @ts-check
// Issue 40's two figures through the built portal (`node build/index.js`) on a PGlite data folder:
//
// fsync: sign-in (POST /api/auth/verify, nonce fetched and message signed before the timed part), a fresh
//   member's first POST /apply (the built-in questions) and POST /checkin, with fsync on (the build as
//   shipped) and off (the same build and Postgres settings, with only the OS fsync taken away by the
//   preload bench/no-fsync.js). Each round runs both servers side by side, each on a fresh copy of one
//   migrated folder, and sends every operation in batches alternating between them.
// backup: a folder seeded with 100,000 applications (admin.js's seed: 5 audit rows per application, a note
//   on every fifth), the portal on it under a steady check-in load, and `npm run db:backup` meanwhile: its
//   wall time, the gzip's size, the folder's size, and the check-ins served before, during and after it.
//   With --restore, `npm run db:restore` of that file into an empty folder is timed as well.
//
//   node bench/durability-portal.js [--only fsync,backup] [--rounds 3] [--members 200] [--connections 8]
//     [--applications 100000] [--backup-members 1000] [--backup-connections 4] [--window 15] [--restore]
// BENCH_STRACE=1 counts the server's fsync calls (strace attached) during each round's check-ins: a check
// that the preload works, not a figure (strace slows the side it traces).
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { pgliteOptions } from '../src/lib/server/db/embedded.js';
import { fetchNonce, httpClient, quantile, siweMessage, startPortal } from './harness.js';
import { seed } from './scenarios/admin.js';

const { values } = parseArgs({
	options: {
		only: { type: 'string', default: 'fsync,backup' },
		rounds: { type: 'string', default: '3' },
		members: { type: 'string', default: '200' },
		connections: { type: 'string', default: '8' },
		applications: { type: 'string', default: '100000' },
		'backup-members': { type: 'string', default: '1000' },
		'backup-connections': { type: 'string', default: '4' },
		window: { type: 'string', default: '15' },
		restore: { type: 'boolean', default: false }
	}
});
const only = new Set(values.only.split(','));
const CONNECTIONS = Number(values.connections);
const CHECKINS_PER_MEMBER = 2; // of the 20 a day the limit allows
const NO_FSYNC = ['--import', path.resolve('bench/no-fsync.js'), 'build/index.js'];
const work = mkdtempSync(path.join(tmpdir(), 'portal-durability-'));

/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A data folder made and migrated by PGlite in this process, then closed cleanly. @param {string} dir */
async function migratedFolder(dir, then = async (/** @type {PGlite} */ _pg) => {}) {
	const pg = await PGlite.create(pgliteOptions(dir));
	try {
		await migrate(drizzle(pg), { migrationsFolder: 'drizzle' });
		await then(pg);
	} finally {
		await pg.close();
	}
}

/** Bytes of the files under `dir`. @param {string} dir @returns {number} */
function folderBytes(dir) {
	let bytes = 0;
	for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true }))
		if (entry.isFile()) bytes += statSync(path.join(entry.parentPath, entry.name)).size;
	return bytes;
}

/** A data folder's size in MiB, and how much of it is write-ahead log (pg_wal). @param {string} dir */
const sizeOf = (dir) =>
	`${(folderBytes(dir) / 2 ** 20).toFixed(1)} MiB (pg_wal ${(folderBytes(path.join(dir, 'pg_wal')) / 2 ** 20).toFixed(1)} MiB)`;

/** @param {string} setCookie */
const cookieOf = (setCookie) => setCookie.split(';')[0] ?? '';

/** Latencies (ms), timed seconds and errors, added up over batches. @typedef {{ latencies: number[], seconds: number, errors: number }} Sample */

/** @returns {Sample} */
const newSample = () => ({ latencies: [], seconds: 0, errors: 0 });

/** @param {Sample} s @returns {import('./harness.js').Rate} */
function rateOf({ latencies, seconds, errors }) {
	const sorted = [...latencies].sort((a, b) => a - b);
	return { rps: sorted.length / seconds, p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), errors };
}

/**
 * Runs `fn` once per item over `concurrency` workers, adding the batch's time and latencies to `sample`.
 * @template T
 * @param {T[]} items
 * @param {number} concurrency
 * @param {(item: T) => Promise<void>} fn
 */
async function timedEach(items, concurrency, fn, sample = newSample()) {
	const queue = [...items];
	const begin = performance.now();
	await Promise.all(
		Array.from({ length: concurrency }, async () => {
			for (let item; (item = queue.shift()) !== undefined;) {
				const t = performance.now();
				await fn(item).catch(() => sample.errors++);
				sample.latencies.push(performance.now() - t);
			}
		})
	);
	sample.seconds += (performance.now() - begin) / 1000;
	return sample;
}

/**
 * A member's posts as a browser's forms send them; each rejects unless answered 303.
 * @param {ReturnType<typeof httpClient>} client
 * @param {string} base
 */
function forms(client, base) {
	/** @param {string} p @param {string} cookie @param {Record<string, string>} form */
	const post = async (p, cookie, form) => {
		const r = await client.request('POST', p, {
			headers: {
				cookie,
				origin: base,
				accept: 'text/html',
				'content-type': 'application/x-www-form-urlencoded'
			},
			body: new URLSearchParams(form).toString()
		});
		if (r.status !== 303) throw new Error(`POST ${p}: ${r.status}`);
	};
	return {
		/** @param {string} cookie @param {number} n */
		apply: (cookie, n) =>
			post('/apply', cookie, {
				displayName: `Member ${n}`,
				motivation: 'I would like to join because '.repeat(8),
				contact: `@member${n}`
			}),
		/** @param {string} cookie @param {number} n */
		checkin: (cookie, n) => post('/checkin', cookie, { note: `bench check-in ${n}` })
	};
}

/**
 * `count` new accounts' verify requests, each with its own nonce cookie and signed message (untimed).
 * @param {string} base
 * @param {number} count
 */
async function prepareSignIns(base, count) {
	/** @type {{ cookie: string, body: string }[]} */
	const items = [];
	await Promise.all(
		Array.from({ length: 8 }, async () => {
			while (items.length < count) {
				const account = privateKeyToAccount(generatePrivateKey());
				const { nonce, cookie } = await fetchNonce(base);
				const message = siweMessage(base, account.address, nonce);
				items.push({ cookie, body: JSON.stringify({ message, signature: await account.signMessage({ message }) }) });
			}
		})
	);
	return items.slice(0, count);
}

/**
 * Signs the prepared requests in; the session cookies, in order of answer.
 * @param {ReturnType<typeof httpClient>} client
 * @param {{ cookie: string, body: string }[]} items
 * @param {number} concurrency
 */
async function signInAll(client, items, concurrency, sample = newSample()) {
	/** @type {string[]} */
	const cookies = [];
	await timedEach(
		items,
		concurrency,
		async ({ cookie, body }) => {
			const r = await client.request('POST', '/api/auth/verify', {
				headers: { 'content-type': 'application/json', cookie },
				body
			});
			if (r.status !== 200) throw new Error(`verify ${r.status}: ${r.text}`);
			cookies.push(cookieOf(String(r.headers['set-cookie']?.[0])));
		},
		sample
	);
	return cookies;
}

/**
 * `strace -c` attached to `pid` (and its threads); the function it resolves to detaches it and answers the fsync calls seen.
 * @param {number} pid
 */
async function countFsyncs(pid) {
	const strace = spawn('strace', ['-f', '-c', '-e', 'trace=fsync,fdatasync', '-p', String(pid)], {
		stdio: ['ignore', 'ignore', 'pipe']
	});
	let output = '';
	strace.stderr.on('data', (/** @type {Buffer} */ c) => (output += c.toString()));
	await sleep(500); // attached by then
	return async () => {
		const exited = new Promise((resolve) => strace.once('exit', resolve));
		strace.kill('SIGINT');
		await exited;
		// The summary's row: % time, seconds, usecs/call, calls, [errors,] syscall.
		const row = output.split('\n').find((line) => line.trim().endsWith(' fsync'));
		return Number(row?.trim().split(/\s+/)[3] ?? 0);
	};
}

/** @typedef {'verify' | 'apply' | 'checkin'} Operation */
const OPERATIONS = /** @type {const} */ (['verify', 'apply', 'checkin']);

/**
 * A server on its own copy of `template`, warmed up: fsync on (the build as shipped) or off (the preload).
 * @param {string} template
 * @param {boolean} fsync
 */
async function side(template, fsync) {
	const dir = path.join(work, `fsync-${fsync ? 'on' : 'off'}`);
	cpSync(template, dir, { recursive: true });
	const portal = await startPortal({ PGLITE_DATA_DIR: dir }, fsync ? {} : { args: NO_FSYNC });
	const client = httpClient(portal.url, CONNECTIONS);
	const { apply, checkin } = forms(client, portal.url);
	// Warm-up: the first requests (one-time schema check, first statements) are not timed.
	const [warm = ''] = await signInAll(client, await prepareSignIns(portal.url, 1), 1);
	await apply(warm, -1);
	await checkin(warm, -1);
	/** @type {Record<Operation, Sample>} */
	const samples = { verify: newSample(), apply: newSample(), checkin: newSample() };
	/** @type {string[]} the members signed in by the timed sign-ins */
	const cookies = [];
	return {
		fsync,
		portal,
		apply,
		checkin,
		samples,
		cookies,
		async stop() {
			client.close();
			await portal.stop();
			rmSync(dir, { recursive: true, force: true });
		},
		/** @param {{ cookie: string, body: string }[]} items */
		signIn: async (items) => void cookies.push(...(await signInAll(client, items, CONNECTIONS, samples.verify)))
	};
}

/** @typedef {Awaited<ReturnType<typeof side>>} Side */

/**
 * One round: both servers up side by side (one idle while the other is loaded), each operation in
 * batches of 5 requests per connection alternating between them, so a change in the machine's load falls on both.
 * @param {string} template
 * @param {number} round
 */
async function fsyncRound(template, round) {
	/** @type {Side[]} */
	const sides = [];
	const chunk = CONNECTIONS * 5;
	const members = Number(values.members);
	/** Each side's batch `k`, the first side first in even batches. @param {(s: Side, k: number) => Promise<unknown>} batch */
	const alternating = async (batch) => {
		for (let k = 0; k < Math.ceil(members / chunk); k++)
			for (const s of k % 2 === 0 ? sides : [...sides].reverse()) await batch(s, k);
	};
	try {
		for (const fsync of round % 2 === 0 ? [true, false] : [false, true]) sides.push(await side(template, fsync));
		const prepared = await Promise.all(sides.map((s) => prepareSignIns(s.portal.url, members)));
		await alternating(async (s, k) => {
			await s.signIn(prepared[sides.indexOf(s)]?.slice(k * chunk, (k + 1) * chunk) ?? []);
		});
		for (const s of sides)
			if (s.cookies.length < members) throw new Error(`only ${s.cookies.length} of ${members} signed in`);
		let n = 0;
		await alternating((s, k) =>
			timedEach(s.cookies.slice(k * chunk, (k + 1) * chunk), CONNECTIONS, (c) => s.apply(c, n++), s.samples.apply)
		);
		const stops = process.env.BENCH_STRACE ? await Promise.all(sides.map((s) => countFsyncs(s.portal.pid))) : [];
		await alternating((s, k) => {
			const batch = s.cookies.slice(k * chunk, (k + 1) * chunk);
			const posts = Array.from({ length: CHECKINS_PER_MEMBER }, () => batch).flat();
			return timedEach(posts, CONNECTIONS, (c) => s.checkin(c, n++), s.samples.checkin);
		});
		const fsyncs = await Promise.all(stops.map((stop) => stop()));
		return sides.map((s, i) => ({
			fsync: s.fsync,
			rates: Object.fromEntries(OPERATIONS.map((op) => [op, rateOf(s.samples[op])])),
			fsyncsPerCheckin: stops.length ? (fsyncs[i] ?? 0) / s.samples.checkin.latencies.length : undefined
		}));
	} finally {
		for (const s of sides) await s.stop();
	}
}

/** @param {number} n */
const f = (n, digits = 1) => n.toFixed(digits);

async function fsyncFigure() {
	const template = path.join(work, 'template');
	await migratedFolder(template);
	const rounds = Number(values.rounds);
	/** @type {Record<'on' | 'off', Record<string, import('./harness.js').Rate>[]>} */
	const results = { on: [], off: [] };
	for (let round = 0; round < rounds; round++) {
		for (const r of await fsyncRound(template, round)) {
			results[r.fsync ? 'on' : 'off'].push(r.rates);
			console.log(
				`round ${round + 1} fsync ${r.fsync ? 'on ' : 'off'}: ` +
					OPERATIONS.map((op) => {
						const m = /** @type {import('./harness.js').Rate} */ (r.rates[op]);
						return `${op} ${f(m.rps)}/s p50 ${f(m.p50)} p99 ${f(m.p99)} ms err ${m.errors}`;
					}).join(' | ') +
					(r.fsyncsPerCheckin === undefined ? '' : ` | fsync calls per check-in ${f(r.fsyncsPerCheckin, 2)}`)
			);
		}
	}
	console.log(`\n${values.members} members, ${CONNECTIONS} connections; medians of ${rounds} rounds per side:`);
	console.log(
		'| operation | fsync on req/s | p50 / p99 ms | fsync off req/s | p50 / p99 ms | on/off rate | per-round on/off |'
	);
	console.log('| --- | --- | --- | --- | --- | --- | --- |');
	for (const op of OPERATIONS) {
		/** @param {Record<string, import('./harness.js').Rate>[]} list @param {'rps' | 'p50' | 'p99'} key */
		const median = (list, key) =>
			quantile(
				list.map((r) => r[op]?.[key] ?? NaN).sort((a, b) => a - b),
				0.5
			);
		const perRound = results.on.map((r, i) => f((r[op]?.rps ?? NaN) / (results.off[i]?.[op]?.rps ?? NaN), 2));
		console.log(
			`| ${op} | ${f(median(results.on, 'rps'))} | ${f(median(results.on, 'p50'))} / ${f(median(results.on, 'p99'))} | ` +
				`${f(median(results.off, 'rps'))} | ${f(median(results.off, 'p50'))} / ${f(median(results.off, 'p99'))} | ` +
				`${f(median(results.on, 'rps') / median(results.off, 'rps'), 2)} | ${perRound.join(', ')} |`
		);
	}
}

async function backupFigure() {
	const applications = Number(values.applications);
	const dir = path.join(work, 'seeded');
	let started = performance.now();
	await migratedFolder(dir, async (pg) => {
		// admin.js's seed speaks postgres.js: its tagged templates become PGlite queries with $n parameters.
		/** @typedef {{ unsafe: string }} Fragment */
		/** @param {TemplateStringsArray} strings @param {unknown[]} params */
		const sql = async (strings, ...params) => {
			/** @type {unknown[]} */
			const bound = [];
			const text = strings.reduce((s, part, i) => {
				const p = params[i - 1];
				const inline = p && typeof p === 'object' && 'unsafe' in p ? /** @type {Fragment} */ (p).unsafe : null;
				return s + (inline ?? `$${bound.push(p)}`) + part;
			});
			return /** @type {{ rows: Record<string, unknown>[] }} */ (await pg.query(text, bound)).rows;
		};
		sql.unsafe = (/** @type {string} */ text) => ({ unsafe: text });
		await seed(
			/** @type {import('postgres').Sql} */ (/** @type {unknown} */ (sql)),
			0,
			applications,
			'0x' + 'ad'.repeat(20)
		);
	});
	const seedSeconds = (performance.now() - started) / 1000;
	console.log(`seeded ${applications} applications in ${f(seedSeconds)} s; folder ${sizeOf(dir)}`);

	const portal = await startPortal({ PGLITE_DATA_DIR: dir });
	const connections = Number(values['backup-connections']);
	const client = httpClient(portal.url, connections);
	const { checkin } = forms(client, portal.url);
	const file = path.join(work, 'backup.sql.gz');
	try {
		const cookies = await signInAll(
			client,
			await prepareSignIns(portal.url, Number(values['backup-members'])),
			connections
		);
		for (let i = 0; i < 5; i++) await checkin(cookies[i] ?? '', -i);
		// Closed-loop check-ins over `connections`, each answer's time kept; windows are cut from them afterwards.
		/** @type {{ at: number, ms: number, ok: boolean }[]} */
		const answers = [];
		let running = true;
		let n = 0;
		const load = Promise.all(
			Array.from({ length: connections }, async () => {
				while (running) {
					const i = n++;
					const t = performance.now();
					const ok = await checkin(cookies[i % cookies.length] ?? '', i).then(
						() => true,
						() => false
					);
					answers.push({ at: performance.now(), ms: performance.now() - t, ok });
				}
			})
		);
		const windowMs = Number(values.window) * 1000;
		const t0 = performance.now();
		await sleep(windowMs);
		const t1 = performance.now();
		const backup = await run(process.execPath, ['scripts/db-backup.js', '--out', file], { PGLITE_DATA_DIR: dir });
		const t2 = performance.now();
		await sleep(windowMs);
		const t3 = performance.now();
		running = false;
		await load;
		console.log(backup.output.trim());
		const backupBytes = statSync(file).size;
		console.log(
			`backup: ${f((t2 - t1) / 1000)} s wall, exit ${backup.code}, ${f(backupBytes / 2 ** 20, 2)} MiB gzip; ` +
				`data folder ${sizeOf(dir)}`
		);
		/** @param {string} label @param {number} from @param {number} to */
		const windowOf = (label, from, to) => {
			const inside = answers.filter((a) => a.at >= from && a.at < to);
			const ms = inside.map((a) => a.ms).sort((a, b) => a - b);
			const served = inside.filter((a) => a.ok).length;
			console.log(
				`  ${label}: ${f((to - from) / 1000)} s, ${served} check-ins served (${f(served / ((to - from) / 1000))}/s), ` +
					`p50 ${f(quantile(ms, 0.5))} p99 ${f(quantile(ms, 0.99))} max ${f(ms[ms.length - 1] ?? 0)} ms, ` +
					`${inside.length - served} errors`
			);
			return served / ((to - from) / 1000);
		};
		console.log(`check-ins, ${cookies.length} members, ${connections} connections:`);
		const before = windowOf('before the backup', t0, t1);
		const during = windowOf('during the backup', t1, t2);
		const after = windowOf('after the backup ', t2, t3);
		console.log(`  during / before ${f(during / before, 2)}, during / after ${f(during / after, 2)}`);
	} finally {
		client.close();
		await portal.stop();
	}
	if (values.restore) {
		const target = path.join(work, 'restored');
		started = performance.now();
		const restore = await run(process.execPath, ['scripts/db-restore.js', file], { PGLITE_DATA_DIR: target });
		console.log(restore.output.trim());
		console.log(
			`restore: ${f((performance.now() - started) / 1000)} s wall, exit ${restore.code}; folder ${sizeOf(target)}`
		);
	}
}

/**
 * Runs a command with only PATH and `env`; its exit code and output.
 * @param {string} command @param {string[]} args @param {Record<string, string>} env
 * @returns {Promise<{ code: number | null, output: string }>}
 */
function run(command, args, env) {
	return new Promise((resolve, reject) => {
		const child = spawn(command, args, { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
		let output = '';
		child.stdout.on('data', (/** @type {Buffer} */ c) => (output += c.toString()));
		child.stderr.on('data', (/** @type {Buffer} */ c) => (output += c.toString()));
		child.once('error', reject);
		child.once('exit', (code) => resolve({ code, output }));
	});
}

try {
	if (only.has('fsync')) await fsyncFigure();
	if (only.has('backup')) await backupFigure();
} finally {
	rmSync(work, { recursive: true, force: true });
}
