// @ts-check
// The portal side by side with its peers (issue 34): better-auth with its SIWE plugin on Postgres, and
// Next.js (app router, production build) with iron-session. Each on a fresh database of its own on the
// Postgres server, loaded from this process in alternating rounds (bench/README.md, "Side by side with the peers").
//
//   node bench/peers/run.js [--seconds 3] [--rounds 5] [--only session,signin] [--no-build]
//
// session: the session check with a valid session cookie, 32 connections: the portal's GET /api/auth/me,
//   better-auth's GET /api/auth/get-session, Next's GET /api/me.
// signin: nonce + verify with a fresh key and a fresh nonce each, 32 connections. Keys, messages and
//   signatures are made in this process between the timed phases: a batch's nonces are fetched (timed),
//   its messages signed (untimed), then its verifies sent (timed); the rate is sign-ins per timed second.
// Each round reads the CPU time of the server (its node process and any children) and of the Postgres
// backends connected to its database, from /proc.
//
// The peers' packages are in bench/peers/package.json, installed here (npm ci) when missing, never by
// the portal's own install.
import { execFileSync, execSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createServerDatabase } from '../../tests/helpers/postgres.js';
import {
	BENCH_SESSION_PASSWORD,
	createBenchDatabase,
	freePort,
	httpClient,
	memoryOf,
	quantile,
	siweMessage,
	startPortal,
	treeCpuMs,
	backendsCpu as backendsCpuOf
} from '../harness.js';

const { values } = parseArgs({
	options: {
		seconds: { type: 'string', default: '3' },
		rounds: { type: 'string', default: '5' },
		only: { type: 'string', default: 'session,signin' },
		'no-build': { type: 'boolean', default: false }
	}
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const loads = (values.only ?? '').split(',');
const CONNECTIONS = 32;
const BATCH = 256; // sign-ins per batch: nonces fetched, then signed, then verified
const adminUrl =
	process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const peersDir = path.resolve('bench/peers');
const nextDir = path.join(peersDir, 'next');
const nodeModules = path.join(peersDir, 'node_modules');

if (!existsSync(path.join(process.cwd(), 'bench/peers/run.js')))
	throw new Error('run from the checkout: node bench/peers/run.js');
if (!existsSync(nodeModules)) {
	console.error('installing the peers (npm ci --prefix bench/peers) ...');
	execSync('npm ci --prefix bench/peers --no-audit --no-fund', { stdio: ['ignore', 'ignore', 'inherit'] });
}
const versionOf = (/** @type {string} */ name) =>
	/** @type {{ version: string }} */ (JSON.parse(readFileSync(path.join(nodeModules, name, 'package.json'), 'utf8')))
		.version;
const peerEnv = { PATH: process.env.PATH, NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1' };
if (!values['no-build']) {
	console.error('building the portal (vite build) and the Next.js peer (next build) ...');
	execSync('npx vite build', { stdio: ['ignore', 'ignore', 'inherit'] });
	execFileSync(process.execPath, [path.join(nodeModules, 'next/dist/bin/next'), 'build'], {
		cwd: nextDir,
		env: peerEnv,
		stdio: ['ignore', 'ignore', 'inherit']
	});
}

const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
/** @param {string} name */
const backendsCpu = (name) => backendsCpuOf(admin, name);

/**
 * Starts a peer: `node args` in `cwd`, ready once its output matches `ready`.
 * @param {string[]} args
 * @param {Record<string, string | undefined>} env
 * @param {string} cwd
 * @param {RegExp} ready
 */
async function startPeer(args, env, cwd, ready) {
	const child = spawn(process.execPath, args, { env: { ...peerEnv, ...env }, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
	let output = '';
	const keep = (/** @type {Buffer} */ c) => {
		output = (output + c.toString()).slice(-64 * 1024);
	};
	child.stdout.on('data', keep);
	child.stderr.on('data', keep);
	await new Promise((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error(`${args.join(' ')} did not start:\n${output}`)), 60_000);
		const check = () => {
			if (!ready.test(output)) return;
			clearTimeout(timer);
			child.stdout.off('data', check);
			resolve(undefined);
		};
		child.stdout.on('data', check);
		child.once('exit', (code) => (clearTimeout(timer), reject(new Error(`exited ${code}:\n${output}`))));
	});
	const pid = /** @type {number} */ (child.pid);
	let stopping = false;
	// A peer that dies mid-run would read as 0 CPU and a row of errors: say so, with what it printed.
	child.once('exit', (code, signal) => {
		if (!stopping) console.error(`${args.join(' ')} exited (${code ?? signal}) during the run:\n${output}`);
	});
	return {
		pid,
		output: () => output,
		stop: () =>
			new Promise((resolve) => {
				stopping = true;
				if (child.exitCode !== null || child.signalCode !== null) return resolve(undefined);
				child.once('exit', resolve);
				child.kill('SIGTERM');
				setTimeout(() => child.kill('SIGKILL'), 5000).unref();
			})
	};
}

/**
 * @typedef {object} Side
 * @property {string} name
 * @property {string} url
 * @property {number} pid
 * @property {string} database  its database's name
 * @property {() => Promise<void>} stop
 * @property {() => Promise<void>} drop
 * @property {{ nonce: [string, string], verify: string, me: string }} paths  nonce: [method, path]
 */

/** @returns {Promise<Side>} */
async function portalSide() {
	const database = await createBenchDatabase(adminUrl);
	const portal = await startPortal({ DATABASE_URL: database.url }, { profile: false });
	return {
		name: 'portal',
		url: portal.url,
		pid: portal.pid,
		database: database.name,
		stop: portal.stop,
		drop: database.drop,
		paths: { nonce: ['GET', '/api/auth/nonce'], verify: '/api/auth/verify', me: '/api/auth/me' }
	};
}

/** @returns {Promise<Side>} */
async function betterAuthSide() {
	const database = await createServerDatabase(adminUrl, { prefix: 'peers_better_auth', migrate: false });
	const port = await freePort();
	const server = await startPeer(
		[path.join(peersDir, 'better-auth/server.js')],
		{
			PORT: String(port),
			DATABASE_URL: database.url,
			BETTER_AUTH_SECRET: 'bench-better-auth-secret-0123456789-abcdef',
			BETTER_AUTH_TELEMETRY: '0',
			MIGRATE: '1'
		},
		peersDir,
		/Listening on/
	);
	return {
		name: 'better-auth',
		url: `http://127.0.0.1:${port}`,
		pid: server.pid,
		database: database.name,
		stop: server.stop,
		drop: database.drop,
		paths: { nonce: ['POST', '/api/auth/siwe/nonce'], verify: '/api/auth/siwe/verify', me: '/api/auth/get-session' }
	};
}

/** @returns {Promise<Side>} */
async function nextSide() {
	// No database: the session lives in the cookie. An empty one keeps the Postgres column honest (zero).
	const database = await createServerDatabase(adminUrl, { prefix: 'peers_next', migrate: false });
	const port = await freePort();
	const server = await startPeer(
		[path.join(nodeModules, 'next/dist/bin/next'), 'start', '-p', String(port), '-H', '127.0.0.1'],
		{ SESSION_PASSWORD: BENCH_SESSION_PASSWORD, SIWE_DOMAIN: `127.0.0.1:${port}` },
		nextDir,
		/Ready in/
	);
	return {
		name: 'next+iron-session',
		url: `http://127.0.0.1:${port}`,
		pid: server.pid,
		database: database.name,
		stop: server.stop,
		drop: database.drop,
		paths: { nonce: ['GET', '/api/nonce'], verify: '/api/verify', me: '/api/me' }
	};
}

/** "name=value" of each Set-Cookie, joined as a Cookie header. @param {import('node:http').IncomingHttpHeaders} headers */
const cookieOf = (headers) => (headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ');

/**
 * What a sign-in needs from each side's client.
 * @param {Side} side
 * @param {ReturnType<typeof httpClient>} client
 */
function signInSteps(side, client) {
	const origin = side.url;
	return {
		/** @returns {Promise<{ nonce: string, cookie: string }>} */
		async nonce() {
			const [method, p] = side.paths.nonce;
			const r =
				method === 'GET'
					? await client.request('GET', p)
					: await client.request('POST', p, { headers: { 'content-type': 'application/json', origin }, body: '{}' });
			if (r.status !== 200) throw new Error(`${side.name} nonce ${r.status}: ${r.text}`);
			return { nonce: /** @type {{ nonce: string }} */ (JSON.parse(r.text)).nonce, cookie: cookieOf(r.headers) };
		},
		/** @param {{ cookie: string, body: string }} signed @returns {Promise<string>} the session cookie */
		async verify({ cookie, body }) {
			/** @type {Record<string, string>} */
			const headers = { 'content-type': 'application/json', origin };
			if (cookie) headers.cookie = cookie;
			const r = await client.request('POST', side.paths.verify, { headers, body });
			if (r.status !== 200) throw new Error(`${side.name} verify ${r.status}: ${r.text}`);
			return cookieOf(r.headers);
		}
	};
}

/** @param {number[]} list */
const median = (list) =>
	quantile(
		[...list].sort((a, b) => a - b),
		0.5
	);

/**
 * @typedef {object} Round
 * @property {number} rps
 * @property {number} p50
 * @property {number} errors
 * @property {number} cpu  server (node) CPU ms per operation
 * @property {number} pg  Postgres backends' CPU ms per operation
 * @property {number} bench  this process's (the load generator's) CPU ms per operation
 */

/**
 * Runs `work` (→ { count, timedMs, latencies, errors }) with the side's CPU read around each timed phase.
 * `measure(fn)` runs fn and adds its CPU (server and Postgres) to the round's.
 * @param {Side} side
 * @param {(measure: <T>(fn: () => Promise<T>) => Promise<T>) => Promise<{ count: number, timedMs: number, latencies: number[], errors: number }>} work
 * @returns {Promise<Round>}
 */
async function round(side, work) {
	let cpu = 0;
	let pg = 0;
	let bench = 0;
	/** @type {<T>(fn: () => Promise<T>) => Promise<T>} */
	const measure = async (fn) => {
		const nodeBefore = treeCpuMs(side.pid);
		const pgBefore = await backendsCpu(side.database);
		const benchBefore = process.cpuUsage();
		const result = await fn();
		const used = process.cpuUsage(benchBefore);
		bench += (used.user + used.system) / 1000;
		cpu += treeCpuMs(side.pid) - nodeBefore;
		for (const [pid, ms] of await backendsCpu(side.database)) pg += ms - (pgBefore.get(pid) ?? 0);
		return result;
	};
	const { count, timedMs, latencies, errors } = await work(measure);
	latencies.sort((a, b) => a - b);
	return {
		rps: count / (timedMs / 1000),
		p50: quantile(latencies, 0.5),
		errors,
		cpu: cpu / count,
		pg: pg / count,
		bench: bench / count
	};
}

/**
 * `n` calls of fn over CONNECTIONS workers (or, without n, as many as fit in `ms`): latencies, errors, wall time.
 * @param {(i: number) => Promise<unknown>} fn
 * @param {{ n?: number, ms?: number }} limit
 */
async function spread(fn, { n = Infinity, ms = Infinity }) {
	/** @type {number[]} */
	const latencies = [];
	let errors = 0;
	let next = 0;
	const started = performance.now();
	const end = started + ms;
	await Promise.all(
		Array.from({ length: CONNECTIONS }, async () => {
			for (let i; (i = next++) < n && performance.now() < end;) {
				const t = performance.now();
				await fn(i).catch(() => errors++);
				latencies.push(performance.now() - t);
			}
		})
	);
	return { latencies, errors, count: latencies.length, timedMs: performance.now() - started };
}

/** @type {Record<string, (side: Side, client: ReturnType<typeof httpClient>, cookie: string) => () => Promise<Round>>} */
const makers = {
	session: (side, client, cookie) => () =>
		round(side, (measure) =>
			measure(() =>
				spread(
					async () => {
						const r = await client.request('GET', side.paths.me, { headers: { cookie } });
						if (r.status !== 200) throw new Error(`${side.name} session ${r.status}`);
					},
					{ ms: seconds * 1000 }
				)
			)
		),
	signin: (side, client) => {
		const steps = signInSteps(side, client);
		return () =>
			round(side, async (measure) => {
				/** @type {number[]} */
				const latencies = [];
				let errors = 0;
				let count = 0;
				let timedMs = 0;
				while (timedMs < seconds * 1000) {
					// Untimed: fresh keys.
					const accounts = Array.from({ length: BATCH }, () => privateKeyToAccount(generatePrivateKey()));
					/** @type {({ nonce: string, cookie: string } | undefined)[]} */
					const nonces = [];
					const fetched = await measure(() => spread(async (i) => (nonces[i] = await steps.nonce()), { n: BATCH }));
					// Untimed: each message names its own nonce; signed here, between the two timed phases.
					/** @type {({ cookie: string, body: string } | undefined)[]} */
					const signed = await Promise.all(
						accounts.map(async (account, i) => {
							const got = nonces[i];
							if (!got) return undefined;
							const message = siweMessage(side.url, account.address, got.nonce);
							return {
								cookie: got.cookie,
								body: JSON.stringify({ message, signature: await account.signMessage({ message }) })
							};
						})
					);
					const verified = await measure(() =>
						spread(
							async (i) => {
								const item = signed[i];
								if (!item) throw new Error('no nonce');
								await steps.verify(item);
							},
							{ n: BATCH }
						)
					);
					timedMs += fetched.timedMs + verified.timedMs;
					count += BATCH;
					errors += fetched.errors + verified.errors;
					// A sign-in's latency: its nonce request's and its verify request's.
					for (let i = 0; i < BATCH; i++) latencies.push((fetched.latencies[i] ?? 0) + (verified.latencies[i] ?? 0));
				}
				return { count, timedMs, latencies, errors };
			});
	}
};

const started = performance.now();
/** @type {Side[]} */
const sides = [];
/** @type {string[]} */
const lines = [];
try {
	console.error('starting the portal, better-auth and Next.js, each on a fresh database ...');
	for (const start of [portalSide, betterAuthSide, nextSide]) sides.push(await start());
	const clients = sides.map((side) => httpClient(side.url, CONNECTIONS));
	// One sign-in each, through its own endpoints: the cookie of the session checks.
	const cookies = await Promise.all(
		sides.map(async (side, i) => {
			const steps = signInSteps(side, /** @type {ReturnType<typeof httpClient>} */ (clients[i]));
			const account = privateKeyToAccount(generatePrivateKey());
			const { nonce, cookie } = await steps.nonce();
			const message = siweMessage(side.url, account.address, nonce);
			const session = await steps.verify({
				cookie,
				body: JSON.stringify({ message, signature: await account.signMessage({ message }) })
			});
			// The check must answer as signed in, not with a signed-out 200.
			const me = await clients[i]?.request('GET', side.paths.me, { headers: { cookie: session } });
			if (me?.status !== 200 || !me.text.toLowerCase().includes(account.address.slice(2).toLowerCase()))
				throw new Error(`${side.name}: the session check does not see the sign-in: ${me?.status} ${me?.text}`);
			return session;
		})
	);
	/** @type {string[][]} */
	const table = [];
	for (const load of loads) {
		const make = makers[load];
		if (!make) throw new Error(`unknown load ${load}; known: ${Object.keys(makers).join(', ')}`);
		const runs = sides.map((side, i) =>
			make(side, /** @type {ReturnType<typeof httpClient>} */ (clients[i]), cookies[i] ?? '')
		);
		console.error(`${load}: warm-up, then ${rounds} rounds of ${seconds} s on each of ${sides.length} servers ...`);
		for (const run of runs) await run(); // warm-up
		/** @type {Round[][]} */
		const results = runs.map(() => []);
		for (let r = 0; r < rounds; r++) {
			// The order rotates, so that no server always runs first or last in a round.
			for (let k = 0; k < runs.length; k++) {
				const i = (k + r) % runs.length;
				results[i]?.push(await /** @type {() => Promise<Round>} */ (runs[i])());
				const side = /** @type {Side} */ (sides[i]);
				if (!existsSync(`/proc/${side.pid}`)) throw new Error(`${side.name} (pid ${side.pid}) is gone`);
			}
		}
		const [mine = []] = results;
		sides.forEach((side, i) => {
			const list = results[i] ?? [];
			const rps = median(list.map((x) => x.rps));
			const cpu = median(list.map((x) => x.cpu));
			const pg = median(list.map((x) => x.pg));
			const mineCpu = median(mine.map((x) => x.cpu + x.pg));
			const pairs = mine.map((x, j) => x.rps / (list[j]?.rps ?? NaN));
			const target = load === 'session' ? 5 : 1.5;
			table.push([
				load === 'session' ? 'session check' : 'sign-in (nonce + verify)',
				side.name,
				rps.toFixed(0),
				median(list.map((x) => x.p50)).toFixed(2),
				String(list.reduce((s, x) => s + x.errors, 0)),
				cpu.toFixed(3),
				pg.toFixed(3),
				(cpu + pg).toFixed(3),
				median(list.map((x) => x.bench)).toFixed(3),
				i === 0 ? '-' : `${median(pairs).toFixed(2)} (${pairs.map((p) => p.toFixed(2)).join(' ')})`,
				i === 0 ? '-' : ((cpu + pg) / mineCpu).toFixed(2),
				i === 0 ? '' : `>= ${target}x: ${median(pairs) >= target ? 'met' : 'NOT met'}`
			]);
		});
	}
	const header = [
		'load',
		'server',
		'per s',
		'p50 ms',
		'errors',
		'node CPU ms/op',
		'Postgres CPU ms/op',
		'CPU ms/op',
		'bench CPU ms/op',
		'portal/peer rate (rounds)',
		'peer/portal CPU',
		'target (rate)'
	];
	const widths = header.map((h, i) => Math.max(h.length, ...table.map((l) => l[i]?.length ?? 0)));
	const row = (/** @type {string[]} */ cells) =>
		'| ' + cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ') + ' |';
	lines.push(row(header), row(widths.map((w) => '-'.repeat(w))), ...table.map(row));
	const alive = (/** @type {Side} */ s) => existsSync(`/proc/${s.pid}`);
	const rss = sides.map((s) => `${s.name} ${alive(s) ? memoryOf(s.pid).peak.toFixed(0) : 'GONE'}`).join(', ');
	const load = os
		.loadavg()
		.map((l) => l.toFixed(1))
		.join(' ');
	console.log(
		`\nmachine: ${os.cpus().length} cores, ${os.cpus()[0]?.model}, Node ${process.version}; ` +
			`better-auth ${versionOf('better-auth')}, next ${versionOf('next')}, iron-session ${versionOf('iron-session')}, ` +
			`viem ${versionOf('viem')}, pg ${versionOf('pg')}; ${rounds} rounds of ${seconds} s, ${CONNECTIONS} connections; ` +
			`load average ${load}; peak RSS MiB (server process) ${rss}; ${((performance.now() - started) / 1000).toFixed(0)} s\n`
	);
	console.log(lines.join('\n'));
	for (const client of clients) client.close();
} finally {
	for (const side of sides) {
		await side.stop();
		await side.drop();
	}
	await admin.end();
}
