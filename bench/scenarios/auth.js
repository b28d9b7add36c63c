// Sign-in and sessions: GET /api/auth/me with a valid cookie against the bare JSON endpoint of the
// same built server, and sign-ins per second in one process against bare viem recovery (run by
// vitest bench from bench/auth-signin.bench.ts, which can import the TypeScript of verifySignIn).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { loop, startPortal } from '../harness.js';

// A well-known development key; it holds nothing.
const account = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const CONNECTIONS = 32;

export default async function auth({ databaseUrl, engine, seconds }) {
	const rows = [];
	const portal = await startPortal(engine === 'postgres' ? { DATABASE_URL: databaseUrl } : {});
	const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
	try {
		const cookie = await signIn(portal.url);
		const get = (p, headers = {}) =>
			new Promise((resolve, reject) => {
				http
					.get(`${portal.url}${p}`, { agent, headers }, (res) => {
						res.resume();
						res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(String(res.statusCode)))));
					})
					.on('error', reject);
			});
		const options = { seconds, concurrency: CONNECTIONS };
		await loop(() => get('/api/bench/bare'), { ...options, seconds: 1 }); // warm-up
		await loop(() => get('/api/auth/me', { cookie }), { ...options, seconds: 1 });
		const bare = await loop(() => get('/api/bench/bare'), options);
		const me = await loop(() => get('/api/auth/me', { cookie }), options);
		rows.push({ name: `GET /api/auth/me, valid cookie (vs bare JSON), ${CONNECTIONS} conns`, ...me, rss: portal.peakRssMiB(), baseline: bare, target: 'ratio >= 0.8' });
	} finally {
		agent.destroy();
		portal.stop();
	}

	const dir = mkdtempSync(path.join(tmpdir(), 'portal-bench-auth-'));
	try {
		const out = path.join(dir, 'signin.json');
		execFileSync('npx', ['vitest', 'bench', '--run', 'bench/auth-signin.bench.ts', '--outputJson', out], {
			env: { ...process.env, BENCH_SECONDS: String(seconds) },
			stdio: ['ignore', 'ignore', 'inherit']
		});
		const benchmarks = JSON.parse(readFileSync(out, 'utf8')).files.flatMap((f) => f.groups.flatMap((g) => g.benchmarks));
		const asRow = (b) => ({ rps: b.hz, p50: b.median, p99: b.p99, errors: 0 });
		// The baseline ran first and last; the mean of both is the reference.
		const runs = benchmarks.filter((b) => b.name.startsWith('bare viem'));
		const mean = (key) => runs.reduce((sum, b) => sum + b[key], 0) / runs.length;
		const recovery = { rps: mean('hz'), p50: mean('median'), p99: mean('p99'), errors: 0 };
		for (const b of benchmarks.filter((b) => !runs.includes(b))) {
			rows.push({ name: `${b.name}, in process (vs bare viem recovery)`, ...asRow(b), baseline: recovery, target: 'ratio >= 0.7' });
		}
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
	return rows;
}

async function signIn(base) {
	const nonceResponse = await fetch(`${base}/api/auth/nonce`);
	const { nonce } = await nonceResponse.json();
	const nonceCookie = nonceResponse.headers.getSetCookie()[0].split(';')[0];
	const now = new Date();
	const host = new URL(base).host;
	const message = createSiweMessage({
		domain: host,
		uri: base,
		address: account.address,
		chainId: 137,
		nonce,
		version: '1',
		issuedAt: now,
		expirationTime: new Date(now.getTime() + 10 * 60_000)
	});
	const response = await fetch(`${base}/api/auth/verify`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', cookie: nonceCookie },
		body: JSON.stringify({ message, signature: await account.signMessage({ message }) })
	});
	if (response.status !== 200) throw new Error(`verify: ${response.status} ${await response.text()}`);
	return response.headers.getSetCookie()[0].split(';')[0];
}
