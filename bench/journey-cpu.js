// @ts-check
// A launch-day member's CPU (bench/launch.js: GET /api/auth/nonce, POST /api/auth/verify, POST /apply),
// request by request: the built portal of this checkout, and with --baseline another checkout's build,
// each on its own migrated database of the Postgres server, in alternating rounds. Each round sends a
// batch of members' nonces, then their verifies, then their applications (--concurrency at a time), and
// reads the portal's CPU (its process tree, /proc) and its database backends' around each of the three,
// so each request's CPU is measured alone; the medians of the rounds are printed. CPU time is what the
// load of other processes on a shared machine changes least (bench/README.md "Launch day").
//
//   node bench/journey-cpu.js [--baseline <checkout>] [--members 300] [--rounds 5] [--concurrency 8]
//
// With BENCH_CPU_PROF=<dir> each portal writes its profile there (node bench/profile.js <file>).
import path from 'node:path';
import { parseArgs } from 'node:util';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import * as secp256k1 from 'tiny-secp256k1';
import os from 'node:os';
import { bytesToHex, getAddress, hashMessage, hexToBytes, keccak256 } from 'viem';
import { generatePrivateKey } from 'viem/accounts';
import { createServerDatabase } from '../tests/helpers/postgres.js';
import { backendsCpu, httpClient, siweMessage, startPortal, treeCpuMs } from './harness.js';

const { values } = parseArgs({
	options: {
		baseline: { type: 'string' },
		members: { type: 'string', default: '300' },
		rounds: { type: 'string', default: '5' },
		concurrency: { type: 'string', default: '8' }
	}
});
const MEMBERS = Number(values.members);
const CONCURRENCY = Number(values.concurrency);
const adminUrl =
	process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });

/** A new member's key and address (libsecp256k1, as bench/launch.js makes them). */
function newAccount() {
	const key = hexToBytes(generatePrivateKey());
	const publicKey = secp256k1.pointFromScalar(key, false);
	if (!publicKey) throw new Error('no public key');
	return { key, address: getAddress(bytesToHex(keccak256(publicKey.subarray(1), 'bytes').subarray(12))) };
}
/** @param {Uint8Array} key @param {string} message */
function sign(key, message) {
	const { signature, recoveryId } = secp256k1.signRecoverable(hashMessage(message, 'bytes'), key);
	return `${bytesToHex(signature)}${(27 + recoveryId).toString(16)}`;
}
/** @param {string} text the body of GET /api/auth/nonce */
const nonceOf = (text) => {
	/** @type {unknown} */
	const parsed = JSON.parse(text);
	return /** @type {{ nonce: string }} */ (parsed).nonce;
};
/** @param {import('./harness.js').Answer} r */
const cookieOf = (r) => String(r.headers['set-cookie']?.[0]).split(';')[0] ?? '';

/**
 * One side: a checkout's build on its own database.
 * @param {string} name
 * @param {string} dir
 */
async function side(name, dir) {
	const database = await createServerDatabase(adminUrl, { prefix: 'portal_journey', migrate: false });
	const client = postgres(database.url, { max: 1, onnotice: () => {} });
	await migrate(drizzle(client), { migrationsFolder: path.join(dir, 'drizzle') });
	await client.end();
	const portal = await startPortal({ DATABASE_URL: database.url }, { cwd: dir });
	const http = httpClient(portal.url, CONCURRENCY);
	/** @type {Record<'nonce' | 'verify' | 'apply', { portal: number, db: number }[]>} */
	const rounds = { nonce: [], verify: [], apply: [] };
	let serial = 0;

	/**
	 * Runs `fn` over `items`, CONCURRENCY at a time; the portal's and its backends' CPU ms per item.
	 * @template T, R
	 * @param {T[]} items
	 * @param {(item: T) => Promise<R>} fn
	 */
	async function measured(items, fn, phase = '') {
		const from = process.hrtime.bigint() / 1000n;
		const portalBefore = treeCpuMs(portal.pid);
		const dbBefore = await backendsCpu(admin, database.name);
		/** @type {R[]} */
		const results = new Array(items.length);
		let next = 0;
		await Promise.all(
			Array.from({ length: CONCURRENCY }, async () => {
				for (let i = next++; i < items.length; i = next++) results[i] = await fn(/** @type {T} */ (items[i]));
			})
		);
		// Work the answers started after they were sent (a log line, the outbox's worker) lands in this request's share.
		await new Promise((r) => setTimeout(r, 100));
		const portalMs = treeCpuMs(portal.pid) - portalBefore;
		// The phase's span in the clock of the portal's profile (bench/profile.js --windows).
		if (process.env.BENCH_CPU_PROF) console.error(`${name} ${phase} ${from}-${process.hrtime.bigint() / 1000n}`);
		let dbMs = 0;
		for (const [pid, ms] of await backendsCpu(admin, database.name)) dbMs += ms - (dbBefore.get(pid) ?? 0);
		return { results, cpu: { portal: portalMs / items.length, db: dbMs / items.length } };
	}

	/** A batch of members; `record` keeps its CPU figures. @param {number} size @param {boolean} record */
	async function batch(size, record) {
		const accounts = Array.from({ length: size }, newAccount);
		const nonces = await measured(
			accounts,
			async (account) => {
				const r = await http.request('GET', '/api/auth/nonce');
				if (r.status !== 200) throw new Error(`${name}: nonce ${r.status}`);
				const message = siweMessage(portal.url, account.address, nonceOf(r.text));
				return {
					account,
					cookie: cookieOf(r),
					body: JSON.stringify({ message, signature: sign(account.key, message) })
				};
			},
			'nonce'
		);
		const verified = await measured(
			nonces.results,
			async ({ cookie, body }) => {
				const r = await http.request('POST', '/api/auth/verify', {
					headers: { 'content-type': 'application/json', cookie },
					body
				});
				if (r.status !== 200) throw new Error(`${name}: verify ${r.status} ${r.text}`);
				return cookieOf(r);
			},
			'verify'
		);
		const applied = await measured(
			verified.results,
			async (cookie) => {
				const n = serial++;
				const r = await http.request('POST', '/apply', {
					headers: {
						cookie,
						origin: portal.url,
						accept: 'text/html',
						'content-type': 'application/x-www-form-urlencoded'
					},
					body: new URLSearchParams([
						['displayName', `Member ${n}`],
						['motivation', 'I would like to join because '.repeat(8)],
						['contact', `@member${n}`]
					]).toString()
				});
				if (r.status !== 303) throw new Error(`${name}: apply ${r.status}`);
			},
			'apply'
		);
		if (!record) return;
		rounds.nonce.push(nonces.cpu);
		rounds.verify.push(verified.cpu);
		rounds.apply.push(applied.cpu);
	}

	return {
		name,
		rounds,
		batch,
		async stop() {
			http.close();
			await portal.stop();
			await database.drop();
		}
	};
}

/** @param {number[]} list */
const median = (list) => {
	const sorted = [...list].sort((a, b) => a - b);
	const mid = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

const sides = [await side('this checkout', '.')];
if (values.baseline) sides.push(await side(`baseline ${values.baseline}`, path.resolve(values.baseline)));
const loads = [];
try {
	for (const s of sides) await s.batch(Math.min(100, MEMBERS), false); // warm: code paths, plans, prepared statements
	for (let round = 0; round < Number(values.rounds); round++) {
		// Alternate which side goes first.
		for (const s of round % 2 ? [...sides].reverse() : sides) await s.batch(MEMBERS, true);
		loads.push(os.loadavg()[0] ?? 0);
	}
	console.log(
		`\n${MEMBERS} members a round, ${values.rounds} rounds, ${CONCURRENCY} at a time; load (1 min) ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}; median CPU ms per request\n\n` +
			'| side | nonce portal / db | verify portal / db | apply portal / db | member portal / db |\n| --- | --- | --- | --- | --- |'
	);
	for (const s of sides) {
		const { nonce, verify, apply } = s.rounds;
		/** @param {{ portal: number, db: number }[]} list */
		const cell = (list) =>
			`${median(list.map((c) => c.portal)).toFixed(2)} / ${median(list.map((c) => c.db)).toFixed(2)}`;
		const member = nonce.map((n, i) => ({
			portal: n.portal + (verify[i]?.portal ?? 0) + (apply[i]?.portal ?? 0),
			db: n.db + (verify[i]?.db ?? 0) + (apply[i]?.db ?? 0)
		}));
		console.log(`| ${s.name} | ${cell(nonce)} | ${cell(verify)} | ${cell(apply)} | ${cell(member)} |`);
	}
} finally {
	for (const s of sides) await s.stop();
	await admin.end();
}
