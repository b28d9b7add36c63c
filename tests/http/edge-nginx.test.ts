// The specification's switch test (Unauthenticated endpoints, rule 3; docs/edge-limits.md) for adapter-node:
// the built portal behind a real nginx running the shipped deploy/nginx configuration.
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NGINX_BIN, NGINX_MISSING_REASON, roomInMinute, startNginx, type RunningNginx } from '../helpers/nginx';
import { freePort, startServer, type RunningServer } from '../helpers/server';

const AUTH = '/api/auth/nonce';
const PULSE = '/api/community-pulse';
const LIMIT = 100;
const BURST = 120;
const refusedRest = Array(BURST - LIMIT).fill(429);

if (!NGINX_BIN) console.warn(`SKIPPED: ${NGINX_MISSING_REASON}`);

interface Answer {
	status: number;
	body: string;
}

async function send(url: string, clientAddress?: string): Promise<Answer> {
	const response = await fetch(url, {
		headers: clientAddress ? { 'X-Forwarded-For': clientAddress } : {},
		signal: AbortSignal.timeout(15_000)
	});
	return { status: response.status, body: await response.text() };
}

async function burst(url: string, count: number, clientAddress?: string | (() => string)): Promise<Answer[]> {
	const answers: Answer[] = [];
	for (let i = 0; i < count; i++) {
		answers.push(await send(url, typeof clientAddress === 'function' ? clientAddress() : clientAddress));
	}
	return answers;
}

const statuses = (answers: Answer[]) => answers.map((a) => a.status);

describe.skipIf(!NGINX_BIN)(
	'edge limits in nginx (deploy/nginx) in front of the built portal',
	{ timeout: 120_000 },
	() => {
		let portal: RunningServer;
		const proxies: RunningNginx[] = [];
		/** What the portal itself answers on each path, so "passed the edge" means exactly that answer. */
		const direct: Record<string, number> = {};

		beforeAll(async () => {
			portal = await startServer({
				env: {
					// Behind nginx, as the README's deployment section says.
					ADDRESS_HEADER: 'X-Forwarded-For',
					XFF_DEPTH: '1',
					COMMUNITY_PULSE_REPO: 'example/portal',
					// Nothing listens there: the feed fails at once instead of reaching the internet.
					GITHUB_API_URL: `http://127.0.0.1:${await freePort()}`
				}
			});
			for (const p of [AUTH, PULSE]) direct[p] = (await send(portal.url + p)).status;
			expect(direct[AUTH]).not.toBe(429);
			expect(direct[PULSE]).not.toBe(429);
		});

		afterAll(async () => {
			await Promise.all(proxies.map((p) => p.stop()));
			await portal?.stop();
		});

		async function nginx(mode: 'log' | 'enforce', trustedProxies: string[]) {
			const proxy = await startNginx({ upstream: `127.0.0.1:${portal.port}`, mode, trustedProxies });
			proxies.push(proxy);
			return proxy;
		}

		describe('enforcing (rate_limit), behind a trusted proxy on loopback', () => {
			let edge: RunningNginx;
			beforeAll(async () => {
				// The test plays the load balancer: its X-Forwarded-For names the client.
				edge = await nginx('enforce', ['127.0.0.1']);
			});

			it('more than 100 requests to /api/auth/nonce: the first 100 reach the portal, then 429 (never 403)', async () => {
				await roomInMinute();
				const answers = await burst(edge.url + AUTH, BURST, '203.0.113.10');
				expect(statuses(answers.slice(0, LIMIT))).toEqual(Array(LIMIT).fill(direct[AUTH]));
				expect(statuses(answers.slice(LIMIT))).toEqual(refusedRest);
				expect(statuses(answers)).not.toContain(403);
				const refused = answers.find((a) => a.status === 429)!;
				expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 'rate_limited' } });
				// A fixed window, not a refilling bucket: a little later in the same minute, still refused.
				await new Promise((r) => setTimeout(r, 2000));
				expect((await send(edge.url + AUTH, '203.0.113.10')).status).toBe(429);
			});

			it('the window is the clock minute: in the next minute the same client is served again', async () => {
				await roomInMinute();
				const client = '203.0.113.11';
				const answers = await burst(edge.url + AUTH, LIMIT + 1, client);
				expect(statuses(answers).at(-1)).toBe(429);
				const now = new Date();
				await new Promise((r) => setTimeout(r, 60_000 - (now.getSeconds() * 1000 + now.getMilliseconds()) + 500));
				expect((await send(edge.url + AUTH, client)).status).toBe(direct[AUTH]);
			});

			it('the limit keys on the client: another client is still served meanwhile', async () => {
				await roomInMinute();
				const first = await burst(edge.url + AUTH, BURST, '203.0.113.20');
				expect(statuses(first)).toContain(429);
				expect((await send(edge.url + AUTH, '203.0.113.21')).status).toBe(direct[AUTH]);
			});

			it('the community-pulse counter is unaffected by the auth traffic', async () => {
				const client = '203.0.113.30';
				await roomInMinute();
				expect(statuses(await burst(edge.url + AUTH, BURST, client))).toContain(429);
				const pulse = await burst(edge.url + PULSE, BURST, client);
				expect(statuses(pulse.slice(0, LIMIT))).toEqual(Array(LIMIT).fill(direct[PULSE]));
				// ... and has a limit of its own.
				expect(statuses(pulse.slice(LIMIT))).toEqual(refusedRest);
				expect(statuses(pulse)).not.toContain(403);
			});

			it('and the auth counter is unaffected by community-pulse traffic', async () => {
				const client = '203.0.113.40';
				await roomInMinute();
				expect(statuses(await burst(edge.url + PULSE, BURST, client))).toContain(429);
				const auth = await burst(edge.url + AUTH, LIMIT, client);
				expect(statuses(auth)).toEqual(Array(LIMIT).fill(direct[AUTH]));
			});

			it('paths outside the two rules are never limited', async () => {
				const answers = await burst(`${edge.url}/healthz`, BURST, '203.0.113.50');
				expect(statuses(answers)).toEqual(Array(BURST).fill(200));
			});
		});

		it('with no trusted proxy, X-Forwarded-For cannot change the key: rotating it still ends in 429', async () => {
			const edge = await nginx('enforce', []);
			let n = 0;
			await roomInMinute();
			const answers = await burst(edge.url + AUTH, BURST, () => `198.51.100.${(n++ % 250) + 1}`);
			expect(statuses(answers.slice(0, LIMIT))).toEqual(Array(LIMIT).fill(direct[AUTH]));
			expect(statuses(answers.slice(LIMIT))).toEqual(refusedRest);
		});

		it('a refused request never reaches the application: 120 sent, 100 arrive', async () => {
			// A counting stand-in for the portal, so every request that passed the edge is seen.
			let arrived = 0;
			const upstream = createServer((_req, res) => {
				arrived++;
				res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"nonce":"x"}');
			});
			await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
			try {
				const address = upstream.address();
				const edge = await startNginx({
					upstream: `127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
					mode: 'enforce'
				});
				proxies.push(edge);
				await roomInMinute();
				const answers = await burst(edge.url + AUTH, BURST);
				expect(statuses(answers).filter((s) => s === 429)).toHaveLength(BURST - LIMIT);
				expect(arrived).toBe(LIMIT + 1); // + the start-up probe of /healthz
			} finally {
				await new Promise<void>((r) => upstream.close(() => r()));
			}
		});

		it('bodies: the apply form takes up to 26 MiB (the portal’s 25 MiB and its 413 page), every other path 1 MiB', async () => {
			// A stand-in for the portal that reads each body whole and says how many bytes arrived.
			const arrived: { path: string; bytes: number }[] = [];
			const upstream = createServer((req, res) => {
				let bytes = 0;
				req.on('data', (c: Buffer) => (bytes += c.length));
				req.on('end', () => {
					if (req.url !== '/healthz') arrived.push({ path: req.url ?? '', bytes }); // nginx's start-up probe
					res.writeHead(200, { 'Content-Type': 'text/plain' }).end(String(bytes));
				});
			});
			await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
			try {
				const address = upstream.address();
				const edge = await startNginx({
					upstream: `127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
					mode: 'enforce'
				});
				proxies.push(edge);
				const MIB = 1024 * 1024;
				const post = async (path: string, size: number) => {
					const answer = await fetch(edge.url + path, {
						method: 'POST',
						body: new Uint8Array(size),
						headers: { 'content-type': 'multipart/form-data; boundary=x' },
						signal: AbortSignal.timeout(30_000)
					});
					return { status: answer.status, body: await answer.text() };
				};
				for (const path of ['/apply', '/apply?/draft', '/apply/cohort', '/apply/cohort?/edit'])
					expect(await post(path, 5 * MIB), path).toEqual({ status: 200, body: String(5 * MIB) });
				expect((await post('/apply', 25 * MIB + 4096)).status).toBe(200);
				expect(arrived.map((a) => a.path)).toEqual([
					'/apply',
					'/apply?/draft',
					'/apply/cohort',
					'/apply/cohort?/edit',
					'/apply'
				]);
				arrived.length = 0;
				// Refused by nginx itself: nothing reaches the portal.
				for (const path of [
					'/review/00000000-0000-4000-8000-000000000000?/vote',
					'/admin/settings?/save',
					'/applyx',
					'/'
				])
					expect((await post(path, 5 * MIB)).status, path).toBe(413);
				expect((await post('/apply', 27 * MIB)).status).toBe(413);
				expect((await post('/admin', MIB - 4096)).status).toBe(200);
				expect(arrived.map((a) => a.path)).toEqual(['/admin']);
			} finally {
				await new Promise<void>((r) => upstream.close(() => r()));
			}
		});

		it('the Log phase (limit_req_dry_run) never answers 429 and logs what it would have refused', async () => {
			const edge = await nginx('log', ['127.0.0.1']);
			const auth = await burst(edge.url + AUTH, BURST, '203.0.113.60');
			const pulse = await burst(edge.url + PULSE, BURST, '203.0.113.60');
			expect(statuses(auth)).toEqual(Array(BURST).fill(direct[AUTH]));
			expect(statuses(pulse)).toEqual(Array(BURST).fill(direct[PULSE]));
			const log = edge.errorLog();
			expect(log).toMatch(/limiting requests, dry run.*zone "portal_auth".*client: 203\.0\.113\.60/);
			expect(log).toMatch(/limiting requests, dry run.*zone "portal_community_pulse".*client: 203\.0\.113\.60/);
		});
	}
);
