// Shared pieces of `npm run bench`: a database of its own, the built server with its peak RSS,
// autocannon runs, and the results table. Plain ESM so the suite needs no build step of its own.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import autocannon from 'autocannon';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';

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

/** Starts `node build/index.js`; peakRssMiB() reads the kernel's high-water mark (VmHWM). */
export async function startPortal(env) {
	const port = await freePort();
	const child = spawn(process.execPath, ['build/index.js'], {
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
		stop() {
			child.kill('SIGTERM');
		}
	};
}

/** One autocannon run; the load comes from this process, the server is another. */
export async function load(options) {
	const result = await autocannon({ duration: 5, connections: 20, ...options });
	return {
		rps: result.requests.average,
		p50: result.latency.p50,
		p99: result.latency.p99,
		errors: result.errors + result.timeouts + result.non2xx
	};
}

/** Runs `fn` over `seconds` with `concurrency` workers in this process; latencies in ms. */
export async function loop(fn, { seconds = 5, concurrency = 10 } = {}) {
	const latencies = [];
	let errors = 0;
	const end = performance.now() + seconds * 1000;
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
	return { rps: latencies.length / seconds, p50: at(0.5), p99: at(0.99), errors };
}

const fmt = (n, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '-');

/** Prints the suite's table: each scenario against its baseline, with the ratio. */
export function printTable(rows) {
	const header = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'peak RSS MiB', 'baseline req/s', 'ratio', 'target'];
	const lines = rows.map((r) => [
		r.name,
		fmt(r.rps, 0),
		fmt(r.p50, 2),
		fmt(r.p99, 2),
		String(r.errors ?? 0),
		r.rss ? fmt(r.rss, 0) : '-',
		r.baseline ? fmt(r.baseline.rps, 0) : '-',
		r.baseline ? fmt(r.rps / r.baseline.rps, 2) : '-',
		r.target ?? ''
	]);
	const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
	const row = (cells) => '| ' + cells.map((c, i) => c.padEnd(widths[i])).join(' | ') + ' |';
	console.log([row(header), row(widths.map((w) => '-'.repeat(w))), ...lines.map(row)].join('\n'));
}
