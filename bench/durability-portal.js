// @ts-check
// Issue 40's two figures through the built portal (`node build/index.js`) on a PGlite data folder:
//
// fsync: sign-in (POST /api/auth/verify, nonce fetched and message signed before the timed part), a fresh
//   member's first POST /apply (the built-in questions) and POST /checkin, with fsync on (the build as
//   shipped) and off (the same build and Postgres settings, with only the OS fsync taken away by the
//   preload bench/no-fsync.js), each round on a fresh copy of one migrated folder, alternating the order.
// backup: a folder seeded with 100,000 applications (admin.js's seed: 5 audit rows per application, a note
//   on every fifth), the portal on it under a steady check-in load, and `npm run db:backup` meanwhile: its
//   wall time, the gzip's size, the folder's size, and the check-ins served before, during and after it.
//   With --restore, `npm run db:restore` of that file into an empty folder is timed as well.
//
//   node bench/durability-portal.js [--only fsync,backup] [--rounds 3] [--members 200] [--connections 8]
//     [--applications 100000] [--backup-members 600] [--backup-connections 4] [--window 15] [--restore]
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
		'backup-members': { type: 'string', default: '600' },
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

/** @param {string} setCookie */
const cookieOf = (setCookie) => setCookie.split(';')[0] ?? '';

/**
 * Runs `fn` once per item over `concurrency` workers: the rate over the whole batch, latencies in ms.
 * @template T
 * @param {T[]} items
 * @param {number} concurrency
 * @param {(item: T) => Promise<void>} fn
 * @returns {Promise<import('./harness.js').Rate>}
 */
async function timedEach(items, concurrency, fn) {
	const queue = [...items];
	/** @type {number[]} */
	const latencies = [];
	let errors = 0;
	const begin = performance.now();
	await Promise.all(
		Array.from({ length: concurrency }, async () => {
			for (let item; (item = queue.shift()) !== undefined;) {
				const t = performance.now();
				await fn(item).catch(() => errors++);
				latencies.push(performance.now() - t);
			}
		})
	);
	const seconds = (performance.now() - begin) / 1000;
	latencies.sort((a, b) => a - b);
	return { rps: items.length / seconds, p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99), errors };
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
async function signInAll(client, items, concurrency) {
	/** @type {string[]} */
	const cookies = [];
	const rate = await timedEach(items, concurrency, async ({ cookie, body }) => {
		const r = await client.request('POST', '/api/auth/verify', {
			headers: { 'content-type': 'application/json', cookie },
			body
		});
		if (r.status !== 200) throw new Error(`verify ${r.status}: ${r.text}`);
		cookies.push(cookieOf(String(r.headers['set-cookie']?.[0])));
	});
	return { rate, cookies };
}

/** `strace -c` attached to `pid` (and its threads) until the returned function is called; it resolves to fsync calls. @param {number} pid */
function countFsyncs(pid) {
	const strace = spawn('strace', ['-f', '-c', '-e', 'trace=fsync,fdatasync', '-p', String(pid)], {
		stdio: ['ignore', 'ignore', 'pipe']
	});
	let output = '';
	strace.stderr.on('data', (/** @type {Buffer} */ c) => (output += c.toString()));
	return async () => {
		const exited = new Promise((resolve) => strace.once('exit', resolve));
		strace.kill('SIGINT');
		await exited;
		return Number(/(\d+)(?:\s+\d+)?\s+fsync\n/.exec(output)?.[1] ?? 0);
	};
}

/** @typedef {{ verify: import('./harness.js').Rate, apply: import('./harness.js').Rate, checkin: import('./harness.js').Rate, fsyncs?: number }} Round */

/**
 * One server on a fresh copy of `template`: sign-ins, first applications, check-ins.
 * @param {string} template
 * @param {boolean} fsync
 * @returns {Promise<Round>}
 */
async function portalRound(template, fsync) {
	const dir = path.join(work, `round-${fsync ? 'on' : 'off'}`);
	cpSync(template, dir, { recursive: true });
	const portal = await startPortal({ PGLITE_DATA_DIR: dir }, fsync ? {} : { args: NO_FSYNC });
	const client = httpClient(portal.url, CONNECTIONS);
	const { apply, checkin } = forms(client, portal.url);
	try {
		// Warm-up: the first requests (one-time schema check, first statements) are not timed.
		const [warm] = (await signInAll(client, await prepareSignIns(portal.url, 1), 1)).cookies;
		await apply(warm ?? '', -1);
		await checkin(warm ?? '', -1);
		const members = Number(values.members);
		const signIns = await signInAll(client, await prepareSignIns(portal.url, members), CONNECTIONS);
		const { cookies } = signIns;
		if (cookies.length < members) throw new Error(`only ${cookies.length} of ${members} signed in`);
		let n = 0;
		const applied = await timedEach(cookies, CONNECTIONS, (cookie) => apply(cookie, n++));
		const stopCount = process.env.BENCH_STRACE ? countFsyncs(portal.pid) : null;
		const checkins = Array.from({ length: CHECKINS_PER_MEMBER }, () => cookies).flat();
		const checkedIn = await timedEach(checkins, CONNECTIONS, (cookie) => checkin(cookie, n++));
		const fsyncs = stopCount ? (await stopCount()) / checkins.length : undefined;
		return { verify: signIns.rate, apply: applied, checkin: checkedIn, fsyncs };
	} finally {
		client.close();
		await portal.stop();
		rmSync(dir, { recursive: true, force: true });
	}
}

/** @param {number} n */
const f = (n, digits = 1) => n.toFixed(digits);

async function fsyncFigure() {
	const template = path.join(work, 'template');
	await migratedFolder(template);
	const rounds = Number(values.rounds);
	/** @type {{ on: Round[], off: Round[] }} */
	const results = { on: [], off: [] };
	for (let round = 0; round < rounds; round++) {
		const order = round % 2 === 0 ? [true, false] : [false, true];
		for (const fsync of order) {
			const r = await portalRound(template, fsync);
			results[fsync ? 'on' : 'off'].push(r);
			const ops = /** @type {const} */ (['verify', 'apply', 'checkin']);
			console.log(
				`round ${round + 1} fsync ${fsync ? 'on ' : 'off'}: ` +
					ops
						.map((op) => `${op} ${f(r[op].rps)}/s p50 ${f(r[op].p50)} p99 ${f(r[op].p99)} ms err ${r[op].errors}`)
						.join(' | ') +
					(r.fsyncs === undefined ? '' : ` | fsync calls per check-in ${f(r.fsyncs, 2)}`)
			);
		}
	}
	console.log(`\n${values.members} members, ${CONNECTIONS} connections; medians of ${rounds} rounds per side:`);
	console.log(
		'| operation | fsync on req/s | p50 / p99 ms | fsync off req/s | p50 / p99 ms | on/off rate | per-round on/off |'
	);
	console.log('| --- | --- | --- | --- | --- | --- | --- |');
	for (const op of /** @type {const} */ (['verify', 'apply', 'checkin'])) {
		/** @param {Round[]} list @param {'rps' | 'p50' | 'p99'} key */
		const median = (list, key) =>
			quantile(
				list.map((r) => r[op][key]).sort((a, b) => a - b),
				0.5
			);
		const perRound = results.on.map((r, i) => f(r[op].rps / (results.off[i]?.[op].rps ?? NaN), 2)).join(', ');
		console.log(
			`| ${op} | ${f(median(results.on, 'rps'))} | ${f(median(results.on, 'p50'))} / ${f(median(results.on, 'p99'))} | ` +
				`${f(median(results.off, 'rps'))} | ${f(median(results.off, 'p50'))} / ${f(median(results.off, 'p99'))} | ` +
				`${f(median(results.on, 'rps') / median(results.off, 'rps'), 2)} | ${perRound} |`
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
	console.log(
		`seeded ${applications} applications in ${f(seedSeconds)} s; folder ${f(folderBytes(dir) / 2 ** 20)} MiB`
	);

	const portal = await startPortal({ PGLITE_DATA_DIR: dir });
	const connections = Number(values['backup-connections']);
	const client = httpClient(portal.url, connections);
	const { checkin } = forms(client, portal.url);
	const file = path.join(work, 'backup.sql.gz');
	try {
		const { cookies } = await signInAll(
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
		const backup = await run('node', ['scripts/db-backup.js', '--out', file], { PGLITE_DATA_DIR: dir });
		const t2 = performance.now();
		await sleep(windowMs);
		const t3 = performance.now();
		running = false;
		await load;
		console.log(backup.output.trim());
		const backupBytes = statSync(file).size;
		console.log(
			`backup: ${f((t2 - t1) / 1000)} s wall, exit ${backup.code}, ${f(backupBytes / 2 ** 20, 2)} MiB gzip; ` +
				`data folder ${f(folderBytes(dir) / 2 ** 20)} MiB`
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
		const restore = await run('node', ['scripts/db-restore.js', file], { PGLITE_DATA_DIR: target });
		console.log(restore.output.trim());
		console.log(
			`restore: ${f((performance.now() - started) / 1000)} s wall, exit ${restore.code}; folder ${f(folderBytes(target) / 2 ** 20)} MiB`
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
