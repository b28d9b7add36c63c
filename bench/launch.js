// @ts-check
// Launch day: three portals behind one PostgreSQL on this machine; new members arrive at a rising
// rate (open loop: arrivals do not wait for earlier ones), each signing in (nonce, SIWE verify) and
// applying (POST /apply, the built-in questions, no eligibility RPC), spread over the three portals in
// turn. Each step runs --step-seconds at one arrival rate, then the rate grows by --factor until the
// p99 of a request passes a second or a request fails. Per step: the rate achieved, p50/p99 of
// verify and apply, errors, and CPU ms per member (portals' process trees and the database's
// backends, read from /proc) and the load generator's own (it shares the cores), with the load average. A first step of sign-ins only at the
// starting rate splits a member's CPU into its sign-in and its application.
// Usage: node bench/launch.js [--start 10] [--factor 1.5] [--step-seconds 10] [--max-rate 600] [--no-build] [--cwd <checkout>]
// --cwd runs another checkout's build (its migrations must be this one's: the database is migrated from here).
import { execSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import * as secp256k1 from 'tiny-secp256k1';
import { bytesToHex, getAddress, hashMessage, hexToBytes, keccak256 } from 'viem';
import { generatePrivateKey } from 'viem/accounts';
import {
	backendsCpu,
	createBenchDatabase,
	httpClient,
	quantile,
	siweMessage,
	startPortal,
	treeCpuMs
} from './harness.js';

const { values } = parseArgs({
	options: {
		start: { type: 'string', default: '10' },
		factor: { type: 'string', default: '1.5' },
		'step-seconds': { type: 'string', default: '10' },
		'max-rate': { type: 'string', default: '600' },
		portals: { type: 'string', default: '3' },
		'no-build': { type: 'boolean', default: false },
		cwd: { type: 'string' }
	}
});
const STEP_MS = Number(values['step-seconds']) * 1000;
const PORTALS = Number(values.portals);

if (!values['no-build']) execSync('npx vite build', { stdio: ['ignore', 'ignore', 'inherit'] });
const adminUrl =
	process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const database = await createBenchDatabase(adminUrl);
const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
/** @type {import('./harness.js').Portal[]} */
const portals = [];
for (let i = 0; i < PORTALS; i++)
	portals.push(await startPortal({ DATABASE_URL: database.url }, { cwd: values.cwd && path.resolve(values.cwd) }));
const clients = portals.map((p) => ({ base: p.url, http: httpClient(p.url, 256) }));

/**
 * A new member's key and address, made before a step starts: the load generator shares the machine's
 * two cores with what it measures, so it does its own work in libsecp256k1 (WebAssembly; viem's
 * JavaScript takes four times the CPU) and off the clock where it can (its CPU per member is reported).
 */
function newAccount() {
	const key = hexToBytes(generatePrivateKey());
	const publicKey = secp256k1.pointFromScalar(key, false);
	if (!publicKey) throw new Error('no public key');
	return { key, address: getAddress(bytesToHex(keccak256(publicKey.subarray(1), 'bytes').subarray(12))) };
}

/** An EIP-191 personal signature (r ‖ s ‖ v, v 27 or 28), as a wallet makes it. @param {Uint8Array} key @param {string} message */
function sign(key, message) {
	const { signature, recoveryId } = secp256k1.signRecoverable(hashMessage(message, 'bytes'), key);
	return `${bytesToHex(signature)}${(27 + recoveryId).toString(16)}`;
}

/** @param {string} setCookie */
const cookieOf = (setCookie) => setCookie.split(';')[0] ?? '';

/**
 * One member: a nonce, a SIWE verify and (unless signInOnly) an application, on portal `n`.
 * @param {number} n
 * @param {boolean} signInOnly
 * @param {{ verify: number[], apply: number[], errors: number, messages: Set<string> }} sample
 * @param {ReturnType<typeof newAccount>} account
 */
async function member(n, signInOnly, sample, account) {
	const { base, http } = /** @type {(typeof clients)[number]} */ (clients[n % clients.length]);
	try {
		const nonce = await http.request('GET', '/api/auth/nonce');
		if (nonce.status !== 200) throw new Error(`nonce ${nonce.status}`);
		/** @type {unknown} */
		const parsed = JSON.parse(nonce.text);
		const issued = /** @type {{ nonce: string }} */ (parsed);
		const message = siweMessage(base, account.address, issued.nonce);
		const body = JSON.stringify({ message, signature: sign(account.key, message) });
		let t = performance.now();
		const verify = await http.request('POST', '/api/auth/verify', {
			headers: { 'content-type': 'application/json', cookie: cookieOf(String(nonce.headers['set-cookie']?.[0])) },
			body
		});
		sample.verify.push(performance.now() - t);
		if (verify.status !== 200) throw new Error(`verify ${verify.status}`);
		if (signInOnly) return;
		const form = new URLSearchParams([
			['displayName', `Member ${n}`],
			['motivation', 'I would like to join because '.repeat(8)],
			['contact', `@member${n}`]
		]).toString();
		t = performance.now();
		const apply = await http.request('POST', '/apply', {
			headers: {
				cookie: cookieOf(String(verify.headers['set-cookie']?.[0])),
				origin: base,
				accept: 'text/html',
				'content-type': 'application/x-www-form-urlencoded'
			},
			body: form
		});
		sample.apply.push(performance.now() - t);
		if (apply.status !== 303) throw new Error(`apply ${apply.status}`);
	} catch (err) {
		sample.errors++;
		sample.messages.add(err instanceof Error ? err.message : String(err));
	}
}

let serial = 0;
/**
 * One step: members arriving at `rate` a second for STEP_MS; resolves when the last has finished.
 * @param {number} rate
 * @param {boolean} signInOnly
 */
async function step(rate, signInOnly) {
	const sample = {
		verify: /** @type {number[]} */ ([]),
		apply: /** @type {number[]} */ ([]),
		errors: 0,
		messages: new Set()
	};
	const accounts = Array.from({ length: Math.ceil((rate * STEP_MS) / 1000) + 1 }, newAccount);
	const cpuBefore = portals.map((p) => treeCpuMs(p.pid));
	const ownBefore = process.cpuUsage();
	const dbBefore = await backendsCpu(admin, database.name);
	const started = performance.now();
	/** @type {Promise<void>[]} */
	const running = [];
	for (let i = 0; performance.now() - started < STEP_MS; i++) {
		const due = started + (i * 1000) / rate;
		const wait = due - performance.now();
		if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
		running.push(member(serial++, signInOnly, sample, accounts[i] ?? newAccount()));
	}
	await Promise.all(running);
	const own = process.cpuUsage(ownBefore);
	const seconds = (performance.now() - started) / 1000;
	const portalMs = portals.reduce((sum, p, i) => sum + treeCpuMs(p.pid) - (cpuBefore[i] ?? 0), 0);
	const dbAfter = await backendsCpu(admin, database.name);
	let dbMs = 0;
	for (const [pid, ms] of dbAfter) dbMs += ms - (dbBefore.get(pid) ?? 0);
	const members = running.length;
	/** @param {number[]} list */
	const q = (list) => {
		list.sort((a, b) => a - b);
		return { p50: quantile(list, 0.5), p99: quantile(list, 0.99) };
	};
	return {
		rate,
		achieved: members / seconds,
		members,
		verify: q(sample.verify),
		apply: q(sample.apply),
		errors: sample.errors,
		messages: [...sample.messages].slice(0, 3),
		portalMsPerMember: portalMs / members,
		dbMsPerMember: dbMs / members,
		ownMsPerMember: (own.user + own.system) / 1000 / members,
		load: os.loadavg()[0] ?? 0
	};
}

/** @param {Awaited<ReturnType<typeof step>>} s @param {string} what */
const line = (s, what) =>
	`| ${what} | ${s.rate.toFixed(0)} | ${s.achieved.toFixed(1)} | ${s.verify.p50.toFixed(0)} / ${s.verify.p99.toFixed(0)} | ${
		s.apply.p50 ? `${s.apply.p50.toFixed(0)} / ${s.apply.p99.toFixed(0)}` : '-'
	} | ${s.errors}${s.messages.length ? ` (${s.messages.join('; ')})` : ''} | ${s.portalMsPerMember.toFixed(1)} | ${s.dbMsPerMember.toFixed(1)} | ${s.ownMsPerMember.toFixed(1)} | ${s.load.toFixed(1)} |`;

try {
	// Warm-up: every portal's code paths and the database's plans.
	await step(Math.min(5, Number(values.start)), false);
	console.log(
		`\n${PORTALS} portals, one PostgreSQL, ${os.cpus().length} cores, ${values['step-seconds']} s a step\n\n` +
			'| step | arrivals/s asked | members/s done | verify p50 / p99 ms | apply p50 / p99 ms | errors | portal CPU ms / member | Postgres CPU ms / member | load generator CPU ms / member | load (1 min) |\n' +
			'| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |'
	);
	console.log(line(await step(Number(values.start), true), 'sign-in only'));
	for (let rate = Number(values.start); rate <= Number(values['max-rate']); rate *= Number(values.factor)) {
		const s = await step(rate, false);
		console.log(line(s, 'sign-in + apply'));
		if (s.errors > 0 || s.verify.p99 > 1000 || s.apply.p99 > 1000) break;
	}
} finally {
	for (const c of clients) c.http.close();
	for (const p of portals) await p.stop();
	await admin.end();
	await database.drop();
}
