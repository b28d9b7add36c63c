// @ts-check
// Shared pieces of `npm run bench`: a database of its own, the built server with its peak RSS, a
// keep-alive HTTP client and load loops, real sign-ins, a statement-counting proxy in front of
// Postgres, and the results table. Plain ESM so the suite needs no build step of its own.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import http from 'node:http';
import { createConnection, createServer } from 'node:net';
import path from 'node:path';
import { createSiweMessage } from 'viem/siwe';
import { createServerDatabase } from '../tests/helpers/postgres.js';

/**
 * What bench/run.js hands every scenario.
 * @typedef {object} Context
 * @property {string} databaseUrl  the suite's migrated database on the Postgres server
 * @property {string} adminUrl  the server's admin URL, for a scenario that needs a database of its own
 * @property {'postgres' | 'pglite'} engine  what the portal runs on (`--pglite`)
 * @property {number} seconds  per round
 * @property {number} rounds  alternating rounds; the median counts
 * @property {number[]} scales  data sizes, in multiples of the scenario's unit
 */

/**
 * A measured rate.
 * @typedef {object} Rate
 * @property {number} rps
 * @property {number} p50  ms
 * @property {number} p99  ms
 * @property {number} errors
 */

/**
 * One line of the table.
 * @typedef {object} Row
 * @property {string} name
 * @property {number} [rps]
 * @property {number} [p50]
 * @property {number} [p99]
 * @property {number} [errors]
 * @property {string} [value]  shown in the req/s column when there is no rate
 * @property {number} [rss]  peak RSS, MiB
 * @property {number} [queries]  SQL statements per request
 * @property {Rate} [baseline]
 * @property {string} [target]
 */

/** @typedef {(context: Context) => Promise<Row[]>} Scenario */

/**
 * A signer as viem's local accounts are.
 * @typedef {{ address: `0x${string}`, signMessage(args: { message: string }): Promise<`0x${string}`> }} Account
 */

const TICK_MS = 10; // USER_HZ is 100 on Linux: /proc reports utime and stime in hundredths of a second

/** CPU ms (user + system) of `pid` and its descendants; 0 once it is gone. @param {number} pid @returns {number} */
export function treeCpuMs(pid) {
	try {
		const fields = (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1] ?? '').split(' ');
		let ms = (Number(fields[11]) + Number(fields[12])) * TICK_MS;
		for (const task of readdirSync(`/proc/${pid}/task`)) {
			const children = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
			for (const child of children ? children.split(' ') : []) ms += treeCpuMs(Number(child));
		}
		return ms;
	} catch {
		return 0;
	}
}

/**
 * The Postgres backends connected to database `name` (the server runs on this machine): pid → CPU ms so far.
 * @param {import('postgres').Sql} admin a connection to any database of that server
 * @param {string} name
 */
export async function backendsCpu(admin, name) {
	const rows = await admin`select pid from pg_stat_activity where datname = ${name}`;
	return new Map(rows.map((r) => [Number(r.pid), treeCpuMs(Number(r.pid))]));
}

export const BENCH_SESSION_PASSWORD = 'bench-session-password-0123456789-abcdef';

/** @returns {Promise<number>} a TCP port free on loopback right now */
export async function freePort() {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
			server.close(() => resolve(port));
		});
	});
}

/**
 * A new migrated database on the server at `adminUrl`; drop() removes it.
 * @param {string} adminUrl
 */
export function createBenchDatabase(adminUrl) {
	return createServerDatabase(adminUrl, { prefix: 'portal_bench' });
}

/**
 * The kernel's figures for process `pid` in MiB: resident now (VmRSS) and its high-water mark (VmHWM).
 * @param {number} pid
 */
export function memoryOf(pid) {
	const status = readFileSync(`/proc/${pid}/status`, 'utf8');
	/** @param {string} field */
	const mib = (field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
	return { rss: mib('VmRSS'), peak: mib('VmHWM') };
}

/**
 * @typedef {object} Portal
 * @property {string} url
 * @property {number} pid  the server's own node process
 * @property {() => number} peakRssMiB  the kernel's high-water mark (VmHWM) of the server process
 * @property {() => Promise<void>} stop  resolves once the server has exited (and, when profiling, written its profile)
 */

/** The portal's command line as deploy/systemd/member-portal.service runs it (decision 0045). */
export const PORTAL_ARGS = ['--max-old-space-size=1024', 'build/index.js'];

/** How much of a portal's output (its last characters) is kept for an error message. */
const OUTPUT_TAIL = 64 * 1024;

/**
 * Starts `node --max-old-space-size=1024 build/index.js` (or node with other `args`, such as `npm start`'s command line) with
 * only the variables given here and in `env` (an undefined value removes one).
 * With BENCH_CPU_PROF=<dir> the server runs under --cpu-prof and writes its profile there on stop().
 * `cwd` runs another checkout's build (bench/ab.js), which reads its own migrations folder.
 * @param {Record<string, string | undefined>} env
 * @param {{ profile?: boolean, args?: string[], cwd?: string }} [options]
 * @returns {Promise<Portal>}
 */
export async function startPortal(env, { profile = true, args = PORTAL_ARGS, cwd = undefined } = {}) {
	const port = await freePort();
	const profileDir = profile ? process.env.BENCH_CPU_PROF : undefined;
	const flags = [];
	if (profileDir) {
		mkdirSync(profileDir, { recursive: true });
		flags.push(
			'--cpu-prof',
			`--cpu-prof-dir=${path.resolve(profileDir)}`,
			'--require',
			path.resolve('bench/exit-on-signal.cjs')
		);
	}
	const child = spawn(process.execPath, [...flags, ...args], {
		env: {
			PATH: process.env.PATH,
			PORT: String(port),
			HOST: '127.0.0.1',
			ORIGIN: `http://127.0.0.1:${port}`,
			SESSION_PASSWORD: BENCH_SESSION_PASSWORD,
			SIWE_ALLOWED_DOMAINS: `127.0.0.1:${port}`,
			PGLITE_DATA_DIR: 'memory://',
			...env
		},
		stdio: ['ignore', 'pipe', 'pipe'],
		cwd
	});
	const pid = child.pid;
	if (pid === undefined) throw new Error(`could not start node ${args.join(' ')}`);
	// Only the start-up output and a bounded tail are kept, for the error messages below: the portal logs a
	// line per request, and keeping (and regex-testing) every line made this process, which is also the load
	// generator, slower with each request a logging portal answered (bench/README.md, "The bench's own share").
	let output = '';
	const keep = (/** @type {Buffer} */ c) => {
		output += c.toString();
		if (output.length > OUTPUT_TAIL) output = output.slice(-OUTPUT_TAIL);
	};
	child.stdout.on('data', keep);
	child.stderr.on('data', keep);
	await /** @type {Promise<void>} */ (
		new Promise((resolve, reject) => {
			const timer = setTimeout(() => reject(new Error(`portal did not start:\n${output}`)), 60_000);
			const ready = () => {
				if (!/Listening on/.test(output)) return;
				clearTimeout(timer);
				child.stdout.off('data', ready);
				resolve();
			};
			child.stdout.on('data', ready);
			child.once('exit', (code) => (clearTimeout(timer), reject(new Error(`portal exited ${code}:\n${output}`))));
		})
	);
	return {
		url: `http://127.0.0.1:${port}`,
		pid,
		peakRssMiB: () => memoryOf(pid).peak,
		stop() {
			// Already gone (a killed child keeps exitCode null and has a signalCode instead).
			if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
			const exited = new Promise((resolve) => child.once('exit', resolve));
			// SIGTERM would wait for the pool's idle connections (30 s); nothing here needs a graceful exit.
			child.kill(profileDir ? 'SIGUSR2' : 'SIGKILL');
			const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
			return exited.then(() => clearTimeout(force));
		}
	};
}

/**
 * @typedef {object} Answer
 * @property {number} status
 * @property {import('node:http').IncomingHttpHeaders} headers
 * @property {string} text
 */

/**
 * A keep-alive HTTP client for one server: request(method, path, {headers, body}) → {status, headers, text}.
 * @param {string} base
 */
export function httpClient(base, connections = 32) {
	// A connection idle for 4 s is closed here, before the portal's KEEP_ALIVE_TIMEOUT (5 s) closes it there:
	// Node 20's client does not heed the server's Keep-Alive hint, and a request sent on a connection the
	// server is closing at that moment is cut ("socket hang up"). The soak's 5 s rounds left one side's
	// connections idle for about that long, and a soak ended that way (bench/README.md, nineteenth session).
	const agent = new http.Agent({ keepAlive: true, maxSockets: connections, timeout: 4000 });
	/**
	 * @param {string} method
	 * @param {string} p
	 * @param {{ headers?: Record<string, string>, body?: string }} [options]
	 * @returns {Promise<Answer>}
	 */
	const request = (method, p, { headers = {}, body } = {}) =>
		new Promise((resolve, reject) => {
			const req = http.request(`${base}${p}`, { method, agent, headers }, (res) => {
				/** @type {Buffer[]} */
				const chunks = [];
				res.on('data', (/** @type {Buffer} */ c) => chunks.push(c));
				res.on('end', () =>
					resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString() })
				);
			});
			req.on('error', reject);
			req.end(body);
		});
	/**
	 * GET that rejects unless the answer is `expect`; what the load loops call.
	 * @param {string} p
	 * @param {Record<string, string>} [headers]
	 */
	const get = async (p, headers = {}, expect = 200) => {
		const r = await request('GET', p, { headers });
		if (r.status !== expect) throw new Error(`GET ${p}: ${r.status}`);
		return r;
	};
	return { request, get, close: () => agent.destroy() };
}

/**
 * The first Set-Cookie of `response` as a Cookie header ("name=value").
 * @param {Response} response
 */
function firstCookie(response) {
	const cookie = response.headers.getSetCookie()[0]?.split(';')[0];
	if (!cookie) throw new Error(`${response.url}: no Set-Cookie`);
	return cookie;
}

/**
 * Signs `account` in through the real nonce and verify endpoints; returns the "session=..." cookie.
 * @param {string} base
 * @param {Account} account
 */
export async function signIn(base, account) {
	const { nonce, cookie } = await fetchNonce(base);
	const message = siweMessage(base, account.address, nonce);
	const response = await fetch(`${base}/api/auth/verify`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', cookie },
		body: JSON.stringify({ message, signature: await account.signMessage({ message }) })
	});
	if (response.status !== 200) throw new Error(`verify: ${response.status} ${await response.text()}`);
	return firstCookie(response);
}

/**
 * A nonce and the cookie that carries it.
 * @param {string} base
 * @returns {Promise<{ nonce: string, cookie: string }>}
 */
export async function fetchNonce(base) {
	const response = await fetch(`${base}/api/auth/nonce`);
	/** @type {unknown} */
	const body = await response.json();
	const { nonce } = /** @type {{ nonce: string }} */ (body);
	return { nonce, cookie: firstCookie(response) };
}

/**
 * The SIWE message the portal accepts from a browser on `base`.
 * @param {string} base
 * @param {`0x${string}`} address
 * @param {string} nonce
 */
export function siweMessage(base, address, nonce) {
	const now = new Date();
	return createSiweMessage({
		domain: new URL(base).host,
		uri: base,
		address,
		chainId: 137,
		nonce,
		version: '1',
		issuedAt: now,
		expirationTime: new Date(now.getTime() + 10 * 60_000)
	});
}

/**
 * Runs each of `runs` (name → async () => result) `rounds` times, alternating; the median round of each by rps.
 * @template {string} K
 * @param {number} rounds
 * @param {Record<K, () => Promise<Rate>>} runs
 * @returns {Promise<Record<K, Rate>>}
 */
export async function alternate(rounds, runs) {
	const entries = /** @type {[K, () => Promise<Rate>][]} */ (Object.entries(runs));
	/** @type {Map<K, Rate[]>} */
	const results = new Map(entries.map(([k]) => [k, []]));
	for (let round = 0; round < rounds; round++) {
		for (const [name, run] of entries) results.get(name)?.push(await run());
	}
	return /** @type {Record<K, Rate>} */ (Object.fromEntries([...results].map(([k, list]) => [k, medianByRps(list)])));
}

/**
 * The median of `list` by rps, with the errors of all of them.
 * @param {Rate[]} list
 * @returns {Rate}
 */
export function medianByRps(list) {
	const sorted = [...list].sort((a, b) => a.rps - b.rps);
	const median = sorted[Math.floor(sorted.length / 2)];
	if (!median) throw new Error('no rounds');
	return { ...median, errors: list.reduce((sum, r) => sum + (r.errors ?? 0), 0) };
}

/**
 * The value at quantile `q` of the sorted `values` (0 when empty).
 * @param {number[]} values
 * @param {number} q
 */
export function quantile(values, q) {
	return values[Math.min(values.length - 1, Math.floor(q * values.length))] ?? 0;
}

/**
 * A TCP proxy in front of Postgres that counts the statements its clients send: every Execute
 * (extended protocol) and every simple Query message of the frontend stream. Statements whose text
 * matches `ignore` (e.g. a background worker's) are counted in `counter.ignored` instead.
 * `noDelay: false` restores the proxy as it was before the stall was found (only `stall.js` asks for it).
 * `texts: true` keeps each counted statement's text in `counter.texts` (`statements.js`).
 * @param {string} databaseUrl
 * @param {{ ignore?: RegExp | null, noDelay?: boolean, texts?: boolean }} [options]
 */
export async function countingProxy(databaseUrl, { ignore = null, noDelay = true, texts = false } = {}) {
	const target = new URL(databaseUrl);
	/** @type {{ statements: number, ignored: number, texts: string[] }} `texts`: each counted statement's text, when asked for */
	const counter = { statements: 0, ignored: 0, texts: [] };
	/** @type {Set<import('node:net').Socket>} */
	const clients = new Set();
	// noDelay on both sides, as Postgres and Node's HTTP server and client set it on theirs. Without it the
	// proxy held the second part of a result Postgres sent in two flushes (8 KiB, then the rest) until
	// the portal acknowledged the first, and the portal's kernel delays that ACK by 40 ms: the "40 ms
	// stall" of the admin pages, which lived only here (bench/README.md, "The 40 ms stall").
	const server = createServer({ noDelay }, (client) => {
		clients.add(client);
		client.once('close', () => clients.delete(client));
		const upstream = createConnection({ host: target.hostname, port: Number(target.port || 5432), noDelay });
		let buffer = Buffer.alloc(0);
		let untyped = true; // the startup (and SSL request) messages carry no type byte
		/** @type {Map<string, string>} statement name → text, from Parse */
		const prepared = new Map();
		let bound = ''; // the text of the statement the last Bind named
		client.on('data', (chunk) => {
			upstream.write(chunk);
			buffer = Buffer.concat([buffer, chunk]);
			for (;;) {
				if (untyped) {
					if (buffer.length < 8) break;
					const length = buffer.readInt32BE(0);
					if (buffer.length < length) break;
					untyped = buffer.readInt32BE(4) === 80877103; // an SSL request is followed by the startup message
					buffer = buffer.subarray(length);
					continue;
				}
				if (buffer.length < 5) break;
				const length = buffer.readInt32BE(1);
				if (buffer.length < 1 + length) break;
				const type = String.fromCharCode(buffer[0] ?? 0);
				if (ignore || texts) {
					const cstrings = buffer
						.subarray(5, 1 + length)
						.toString('utf8')
						.split('\0');
					if (type === 'P') prepared.set(cstrings[0] ?? '', cstrings[1] ?? '');
					if (type === 'B') bound = prepared.get(cstrings[1] ?? '') ?? '';
				}
				const text = type === 'Q' ? buffer.subarray(5, length).toString('utf8') : bound;
				if ((type === 'E' || type === 'Q') && ignore?.test(text)) counter.ignored++;
				else if (type === 'E' || type === 'Q') {
					counter.statements++;
					if (texts) counter.texts.push(text);
				}
				buffer = buffer.subarray(1 + length);
			}
		});
		upstream.on('data', (chunk) => client.write(chunk));
		// Either side closing or failing closes the other.
		for (const [a, b] of /** @type {const} */ ([
			[client, upstream],
			[upstream, client]
		])) {
			a.on('error', () => b.destroy());
			a.on('close', () => b.destroy());
		}
	});
	await /** @type {Promise<void>} */ (new Promise((resolve) => server.listen(0, '127.0.0.1', resolve)));
	const url = new URL(databaseUrl);
	url.hostname = '127.0.0.1';
	url.port = String(/** @type {import('node:net').AddressInfo} */ (server.address()).port);
	return {
		url: url.toString(),
		counter,
		/** @returns {Promise<void>} */
		close: () =>
			new Promise((resolve) => {
				server.close(() => resolve());
				// close() waits for every open connection: end them (each takes its upstream with it).
				for (const client of clients) client.destroy();
			})
	};
}

/**
 * Runs `fn` over `seconds` with `concurrency` workers in this process; latencies in ms.
 * @param {(worker: number, i: number) => Promise<unknown>} fn
 * @param {{ seconds?: number, concurrency?: number }} [options]
 * @returns {Promise<Rate>}
 */
export async function loop(fn, { seconds = 5, concurrency = 10 } = {}) {
	/** @type {number[]} */
	const latencies = [];
	let errors = 0;
	const begin = performance.now();
	const end = begin + seconds * 1000;
	await Promise.all(
		Array.from({ length: concurrency }, async (_, worker) => {
			for (let i = 0; performance.now() < end; i++) {
				const started = performance.now();
				try {
					await fn(worker, i);
				} catch {
					errors++;
				}
				latencies.push(performance.now() - started);
			}
		})
	);
	latencies.sort((a, b) => a - b);
	return {
		rps: latencies.length / ((performance.now() - begin) / 1000),
		p50: quantile(latencies, 0.5),
		p99: quantile(latencies, 0.99),
		errors
	};
}

/** @param {number | undefined} n */
const fmt = (n, digits = 1) => (n !== undefined && Number.isFinite(n) ? n.toFixed(digits) : '-');

/**
 * Prints the suite's table: each scenario against its baseline, with the ratio.
 * @param {Row[]} rows
 */
export function printTable(rows) {
	const header = [
		'scenario',
		'req/s',
		'p50 ms',
		'p99 ms',
		'errors',
		'peak RSS MiB',
		'SQL/req',
		'baseline req/s',
		'ratio',
		'target'
	];
	const lines = rows.map((r) => [
		r.name,
		r.rps === undefined ? (r.value ?? '-') : fmt(r.rps, r.rps < 100 ? 1 : 0),
		fmt(r.p50, 2),
		fmt(r.p99, 2),
		r.rps === undefined ? '-' : String(r.errors ?? 0),
		r.rss ? fmt(r.rss, 0) : '-',
		r.queries === undefined ? '-' : String(r.queries),
		r.baseline ? fmt(r.baseline.rps, r.baseline.rps < 100 ? 1 : 0) : '-',
		r.baseline && r.rps !== undefined ? fmt(r.rps / r.baseline.rps, 2) : '-',
		r.target ?? ''
	]);
	const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]?.length ?? 0)));
	/** @param {string[]} cells */
	const row = (cells) => '| ' + cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ') + ' |';
	console.log([row(header), row(widths.map((w) => '-'.repeat(w))), ...lines.map(row)].join('\n'));
}
