#!/usr/bin/env node
// Cached GET /api/community-pulse against a bare JSON endpoint of the same built server.
// Usage: npm run build && node bench/pulse.mjs [--seconds 5] [--connections 32] [--rounds 5]
// Also a scenario for bench/run.js: the default export takes { seconds } and returns table rows.
import { spawn } from 'node:child_process';
import { createServer, request, Agent } from 'node:http';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

/** A fake GitHub on loopback: 30 open issues (a few of them pull requests), counting requests. */
async function startFakeGitHub() {
	const issues = Array.from({ length: 30 }, (_, i) => ({
		number: i + 1,
		title: `Issue ${i + 1}: something worth discussing in the community`,
		html_url: `https://github.com/acme/portal/issues/${i + 1}`,
		user: { login: `member${i}` },
		labels: [{ name: 'discussion', color: '5319e7' }],
		comments: i,
		created_at: '2026-01-01T00:00:00Z',
		updated_at: '2026-11-20T00:00:00Z',
		body: 'x'.repeat(500),
		...(i % 10 === 9 ? { pull_request: { url: 'https://api.github.com/repos/acme/portal/pulls/1' } } : {})
	}));
	const body = JSON.stringify(issues);
	let count = 0;
	const server = createServer((_req, res) => {
		count++;
		res.writeHead(200, { 'content-type': 'application/json' });
		res.end(body);
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	return { url: `http://127.0.0.1:${server.address().port}`, count: () => count, close: () => server.close() };
}

async function freePort() {
	const server = createServer();
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address();
	await new Promise((resolve) => server.close(resolve));
	return port;
}

async function startPortal(githubUrl) {
	const port = await freePort();
	const child = spawn(process.execPath, ['build/index.js'], {
		env: {
			PATH: process.env.PATH,
			PORT: String(port),
			HOST: '127.0.0.1',
			ORIGIN: `http://127.0.0.1:${port}`,
			SESSION_PASSWORD: 'bench-session-password-0123456789-abcdef',
			SIWE_ALLOWED_DOMAINS: `127.0.0.1:${port}`,
			PGLITE_DATA_DIR: 'memory://',
			COMMUNITY_PULSE_REPO: 'acme/portal',
			GITHUB_API_URL: githubUrl
		},
		stdio: ['ignore', 'pipe', 'inherit']
	});
	await new Promise((resolve, reject) => {
		let out = '';
		child.stdout.on('data', (chunk) => {
			out += chunk;
			if (/Listening on/.test(out)) resolve();
		});
		child.once('exit', (code) => reject(new Error(`server exited (${code}): ${out}`)));
	});
	return { url: `http://127.0.0.1:${port}`, stop: () => child.kill('SIGTERM') };
}

/** `CONNECTIONS` keep-alive loops hitting `url` for `SECONDS`; returns requests/s and latency percentiles. */
async function load(url, { seconds: SECONDS, connections: CONNECTIONS }) {
	const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
	const latencies = [];
	let errors = 0;
	const deadline = performance.now() + SECONDS * 1000;
	const once = () =>
		new Promise((resolve) => {
			const started = performance.now();
			const req = request(url, { agent }, (res) => {
				res.resume();
				res.on('end', () => {
					if (res.statusCode !== 200) errors++;
					latencies.push(performance.now() - started);
					resolve();
				});
			});
			req.on('error', () => {
				errors++;
				resolve();
			});
			req.end();
		});
	const started = performance.now();
	await Promise.all(
		Array.from({ length: CONNECTIONS }, async () => {
			while (performance.now() < deadline) await once();
		})
	);
	const elapsed = (performance.now() - started) / 1000;
	agent.destroy();
	latencies.sort((a, b) => a - b);
	const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
	return { requests: latencies.length, errors, rps: latencies.length / elapsed, p50: at(0.5), p99: at(0.99) };
}

/** Alternating rounds on both endpoints; medians, since the machine may be shared with other work. */
export async function measure({ seconds = 5, connections = 32, rounds = 5, log = console.error } = {}) {
	const github = await startFakeGitHub();
	const portal = await startPortal(github.url);
	try {
		const endpoints = { bare: `${portal.url}/api/bench/bare`, pulse: `${portal.url}/api/community-pulse` };
		// Warm both routes (and fill the feed's cache) before measuring.
		for (const url of Object.values(endpoints)) for (let i = 0; i < 50; i++) await fetch(url).then((r) => r.arrayBuffer());
		const upstreamBefore = github.count();
		const runs = { bare: [], pulse: [] };
		for (let round = 1; round <= rounds; round++) {
			for (const [name, url] of Object.entries(endpoints)) {
				const result = await load(url, { seconds, connections });
				runs[name].push(result);
				log(
					`round ${round} ${name.padEnd(5)} ${result.rps.toFixed(0).padStart(7)} req/s  p50 ${result.p50.toFixed(2)} ms  p99 ${result.p99.toFixed(2)} ms  errors ${result.errors}`
				);
			}
		}
		const median = (list) => [...list].sort((x, y) => x.rps - y.rps)[Math.floor(list.length / 2)];
		const bare = median(runs.bare);
		const pulse = median(runs.pulse);
		return {
			seconds,
			connections,
			rounds,
			bare,
			pulse,
			ratio: Number((pulse.rps / bare.rps).toFixed(3)),
			pulseRequests: runs.pulse.reduce((sum, r) => sum + r.requests, 0),
			errors: [...runs.bare, ...runs.pulse].reduce((sum, r) => sum + r.errors, 0),
			upstreamRequestsDuringRun: github.count() - upstreamBefore,
			upstreamRequestsTotal: github.count()
		};
	} finally {
		portal.stop();
		github.close();
	}
}

/** bench/run.js scenario: one row, the cached feed against the bare endpoint as its baseline. */
export default async function pulseScenario({ seconds = 5 } = {}) {
	const m = await measure({ seconds, rounds: 3 });
	return [
		{
			name: `GET /api/community-pulse cached (upstream requests during run: ${m.upstreamRequestsDuringRun})`,
			...m.pulse,
			errors: m.errors,
			baseline: m.bare,
			target: 'ratio ~1, 0 upstream'
		}
	];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
	const { values } = parseArgs({
		options: {
			seconds: { type: 'string', default: '5' },
			connections: { type: 'string', default: '32' },
			rounds: { type: 'string', default: '5' }
		}
	});
	const m = await measure({ seconds: Number(values.seconds), connections: Number(values.connections), rounds: Number(values.rounds) });
	const round = (r) => ({ rps: Math.round(r.rps), p50: Number(r.p50.toFixed(2)), p99: Number(r.p99.toFixed(2)) });
	console.log(JSON.stringify({ ...m, bare: round(m.bare), pulse: round(m.pulse) }, null, 2));
}
