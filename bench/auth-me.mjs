// GET /api/auth/me with a valid session cookie against a bare JSON endpoint of the same built server.
// Usage: npm run build && node bench/auth-me.mjs   (BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_ROUNDS)
import { spawn } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
// A well-known development key; it holds nothing.
const account = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');

const port = await new Promise((resolve) => {
	const s = net.createServer().listen(0, '127.0.0.1', () => {
		const { port } = s.address();
		s.close(() => resolve(port));
	});
});
const base = `http://127.0.0.1:${port}`;
const server = spawn(process.execPath, ['build/index.js'], {
	env: {
		PATH: process.env.PATH,
		PORT: String(port),
		HOST: '127.0.0.1',
		ORIGIN: base,
		SESSION_PASSWORD: 'bench-session-password-0123456789-abcdef',
		SIWE_ALLOWED_DOMAINS: `127.0.0.1:${port}`,
		PGLITE_DATA_DIR: 'memory://'
	},
	stdio: ['ignore', 'pipe', 'inherit']
});
await new Promise((resolve) => server.stdout.on('data', (d) => /Listening on/.test(String(d)) && resolve()));

try {
	const cookie = await signIn();
	const me = await (await fetch(`${base}/api/auth/me`, { headers: { cookie } })).json();
	if (me.address !== account.address) throw new Error(`not signed in: ${JSON.stringify(me)}`);

	const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
	const results = { bare: [], me: [] };
	await load('/api/bench/bare', {}, agent, 2); // warm-up
	await load('/api/auth/me', { cookie }, agent, 2);
	for (let round = 0; round < ROUNDS; round++) {
		results.bare.push(await load('/api/bench/bare', {}, agent, SECONDS));
		results.me.push(await load('/api/auth/me', { cookie }, agent, SECONDS));
	}
	const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
	const bare = median(results.bare);
	const signedIn = median(results.me);
	console.log(`connections ${CONNECTIONS}, ${ROUNDS} alternating rounds of ${SECONDS}s`);
	console.log(`bare JSON      req/s: ${results.bare.map(Math.round).join(', ')}  median ${Math.round(bare)}`);
	console.log(`/api/auth/me   req/s: ${results.me.map(Math.round).join(', ')}  median ${Math.round(signedIn)}`);
	console.log(`ratio me/bare: ${(signedIn / bare).toFixed(2)} (target >= 0.8)`);
	agent.destroy();
} finally {
	server.kill('SIGTERM');
}

async function signIn() {
	const nonceResponse = await fetch(`${base}/api/auth/nonce`);
	const { nonce } = await nonceResponse.json();
	const nonceCookie = nonceResponse.headers.getSetCookie()[0].split(';')[0];
	const now = new Date();
	const message = createSiweMessage({
		domain: `127.0.0.1:${port}`,
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

/** Requests per second over `seconds`, CONNECTIONS requests in flight on keep-alive sockets. */
async function load(path, headers, agent, seconds) {
	const deadline = performance.now() + seconds * 1000;
	let done = 0;
	const started = performance.now();
	const worker = async () => {
		while (performance.now() < deadline) {
			await new Promise((resolve, reject) => {
				http
					.get({ host: '127.0.0.1', port, path, headers, agent }, (res) => {
						if (res.statusCode !== 200) reject(new Error(`${path}: ${res.statusCode}`));
						res.resume();
						res.on('end', resolve);
					})
					.on('error', reject);
			});
			done++;
		}
	};
	await Promise.all(Array.from({ length: CONNECTIONS }, worker));
	return done / ((performance.now() - started) / 1000);
}
