// Shared pieces of `npm run bench`: a database of its own, the built server with its peak RSS, a
// keep-alive HTTP client and load loops, real sign-ins, a statement-counting proxy in front of
// Postgres, and the results table. Plain ESM so the suite needs no build step of its own.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { createConnection, createServer } from 'node:net';
import path from 'node:path';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { createSiweMessage } from 'viem/siwe';

export const BENCH_SESSION_PASSWORD = 'bench-session-password-0123456789-abcdef';

export async function freePort() {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address();
			server.close(() => resolve(port));
		});
	});
}

/** A new migrated database on the server at `adminUrl`; drop() removes it. */
export async function createBenchDatabase(adminUrl) {
	const name = `portal_bench_${randomBytes(5).toString('hex')}`;
	const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
	await admin.unsafe(`create database ${name}`);
	await admin.end();
	const url = new URL(adminUrl);
	url.pathname = `/${name}`;
	const client = postgres(url.toString(), { max: 1, onnotice: () => {} });
	await migrate(drizzle(client), { migrationsFolder: 'drizzle' });
	await client.end();
	return {
		url: url.toString(),
		async drop() {
			const a = postgres(adminUrl, { max: 1, onnotice: () => {} });
			await a.unsafe(`drop database if exists ${name} with (force)`);
			await a.end();
		}
	};
}

/**
 * Starts `node build/index.js`; peakRssMiB() reads the kernel's high-water mark (VmHWM).
 * With BENCH_CPU_PROF=<dir> the server runs under --cpu-prof and writes its profile there on stop().
 */
export async function startPortal(env, { profile = true } = {}) {
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
	const child = spawn(process.execPath, [...flags, 'build/index.js'], {
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
		stdio: ['ignore', 'pipe', 'pipe']
	});
	let output = '';
	child.stdout.on('data', (c) => (output += c));
	child.stderr.on('data', (c) => (output += c));
	await new Promise((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error(`portal did not start:\n${output}`)), 60_000);
		child.stdout.on('data', () => /Listening on/.test(output) && (clearTimeout(timer), resolve()));
		child.once('exit', (code) => (clearTimeout(timer), reject(new Error(`portal exited ${code}:\n${output}`))));
	});
	return {
		url: `http://127.0.0.1:${port}`,
		pid: child.pid,
		peakRssMiB() {
			const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
			const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
			return kb / 1024;
		},
		/** Resolves once the server has exited (and, when profiling, written its profile). */
		stop() {
			if (child.exitCode !== null) return Promise.resolve();
			const exited = new Promise((resolve) => child.once('exit', resolve));
			// SIGTERM would wait for the pool's idle connections (30 s); nothing here needs a graceful exit.
			child.kill(profileDir ? 'SIGUSR2' : 'SIGKILL');
			const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
			return exited.then(() => clearTimeout(force));
		}
	};
}

/** A keep-alive HTTP client for one server: request(method, path, {headers, body}) → {status, headers, text}. */
export function httpClient(base, connections = 32) {
	const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
	const request = (method, p, { headers = {}, body } = {}) =>
		new Promise((resolve, reject) => {
			const req = http.request(`${base}${p}`, { method, agent, headers }, (res) => {
				const chunks = [];
				res.on('data', (c) => chunks.push(c));
				res.on('end', () =>
					resolve({ status: res.statusCode, headers: res.headers, text: Buffer.concat(chunks).toString() })
				);
			});
			req.on('error', reject);
			req.end(body);
		});
	/** GET that rejects unless the answer is `expect`; what the load loops call. */
	const get = async (p, headers = {}, expect = 200) => {
		const r = await request('GET', p, { headers });
		if (r.status !== expect) throw new Error(`GET ${p}: ${r.status}`);
		return r;
	};
	return { request, get, close: () => agent.destroy() };
}

/** Signs `account` in through the real nonce and verify endpoints; returns the "session=..." cookie. */
export async function signIn(base, account) {
	const { nonce, cookie } = await fetchNonce(base);
	const message = siweMessage(base, account.address, nonce);
	const response = await fetch(`${base}/api/auth/verify`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', cookie },
		body: JSON.stringify({ message, signature: await account.signMessage({ message }) })
	});
	if (response.status !== 200) throw new Error(`verify: ${response.status} ${await response.text()}`);
	return response.headers.getSetCookie()[0].split(';')[0];
}

/** A nonce and the cookie that carries it. */
export async function fetchNonce(base) {
	const response = await fetch(`${base}/api/auth/nonce`);
	const { nonce } = await response.json();
	return { nonce, cookie: response.headers.getSetCookie()[0].split(';')[0] };
}

/** The SIWE message the portal accepts from a browser on `base`. */
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

/** Runs each of `runs` (name → async () => result) `rounds` times, alternating; the median round of each by rps. */
export async function alternate(rounds, runs) {
	const results = Object.fromEntries(Object.keys(runs).map((k) => [k, []]));
	for (let round = 0; round < rounds; round++) {
		for (const [name, run] of Object.entries(runs)) results[name].push(await run());
	}
	return Object.fromEntries(Object.entries(results).map(([k, list]) => [k, medianByRps(list)]));
}

export function medianByRps(list) {
	const sorted = [...list].sort((a, b) => a.rps - b.rps);
	return { ...sorted[Math.floor(sorted.length / 2)], errors: list.reduce((sum, r) => sum + (r.errors ?? 0), 0) };
}

/**
 * A TCP proxy in front of Postgres that counts the statements its clients send: every Execute
 * (extended protocol) and every simple Query message of the frontend stream.
 */
export async function countingProxy(databaseUrl) {
	const target = new URL(databaseUrl);
	const counter = { statements: 0 };
	const server = createServer((client) => {
		const upstream = createConnection({ host: target.hostname, port: Number(target.port || 5432) });
		let buffer = Buffer.alloc(0);
		let untyped = true; // the startup (and SSL request) messages carry no type byte
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
				const type = String.fromCharCode(buffer[0]);
				if (type === 'E' || type === 'Q') counter.statements++;
				buffer = buffer.subarray(1 + length);
			}
		});
		upstream.on('data', (chunk) => client.write(chunk));
		for (const [a, b] of [
			[client, upstream],
			[upstream, client]
		]) {
			a.on('error', () => b.destroy());
			a.on('close', () => b.destroy());
		}
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	const url = new URL(databaseUrl);
	url.hostname = '127.0.0.1';
	url.port = String(server.address().port);
	return {
		url: url.toString(),
		counter,
		close: () => new Promise((r) => (server.closeAllConnections?.(), server.close(r)))
	};
}

/** Runs `fn` over `seconds` with `concurrency` workers in this process; latencies in ms. */
export async function loop(fn, { seconds = 5, concurrency = 10 } = {}) {
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
	const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
	return { rps: latencies.length / ((performance.now() - begin) / 1000), p50: at(0.5), p99: at(0.99), errors };
}

const fmt = (n, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '-');

/** Prints the suite's table: each scenario against its baseline, with the ratio. */
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
		r.baseline ? fmt(r.rps / r.baseline.rps, 2) : '-',
		r.target ?? ''
	]);
	const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
	const row = (cells) => '| ' + cells.map((c, i) => c.padEnd(widths[i])).join(' | ') + ' |';
	console.log([row(header), row(widths.map((w) => '-'.repeat(w))), ...lines.map(row)].join('\n'));
}
