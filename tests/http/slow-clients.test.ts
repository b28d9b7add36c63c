// Slow clients are cut (docs/security.md "Slow clients"): the built server with short timeouts set
// through its environment, the production defaults checked, and the shipped nginx configuration.
import { Agent, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TIMEOUT_CHECK_INTERVAL_MS, TIMEOUT_DEFAULTS } from '../../deploy/server.js';
import { NGINX_BIN, startNginx, type RunningNginx } from '../helpers/nginx';
import { rawRequest, trickle } from '../helpers/raw-http';
import { startServer, type RunningServer } from '../helpers/server';

describe('slow clients', { timeout: 60_000 }, () => {
	let portal: RunningServer;
	let proxy: RunningNginx | undefined;

	beforeAll(async () => {
		portal = await startServer({ env: { REQUEST_TIMEOUT: '2', HEADERS_TIMEOUT: '1' } });
		if (NGINX_BIN) proxy = await startNginx({ upstream: `127.0.0.1:${portal.port}`, mode: 'enforce' });
	});
	afterAll(async () => {
		await proxy?.stop();
		await portal?.stop();
	});

	it('in production a request must be complete within 30 s, checks included', () => {
		expect(TIMEOUT_DEFAULTS.REQUEST_TIMEOUT * 1000 + TIMEOUT_CHECK_INTERVAL_MS).toBeLessThanOrEqual(30_000);
		expect(TIMEOUT_DEFAULTS.HEADERS_TIMEOUT).toBeLessThanOrEqual(TIMEOUT_DEFAULTS.REQUEST_TIMEOUT);
	});

	it('the server cuts a body trickled byte by byte once REQUEST_TIMEOUT has passed', async () => {
		const { closedAfterMs } = await trickle(portal.port, { part: 'body', everyMs: 300, giveUpMs: 10_000 });
		expect(closedAfterMs).toBeGreaterThanOrEqual(1900);
		expect(closedAfterMs).toBeLessThan(2000 + TIMEOUT_CHECK_INTERVAL_MS + 1500);
	});

	it('the server cuts headers trickled line by line once HEADERS_TIMEOUT has passed, with 408', async () => {
		const { closedAfterMs, answer } = await trickle(portal.port, { part: 'headers', everyMs: 300, giveUpMs: 10_000 });
		expect(closedAfterMs).toBeLessThan(2000 + TIMEOUT_CHECK_INTERVAL_MS + 1500);
		expect(answer).toMatch(/^HTTP\/1\.1 408/);
	});

	it('a request sent at an ordinary pace is served meanwhile', async () => {
		const slow = trickle(portal.port, { part: 'body', everyMs: 300, giveUpMs: 10_000 });
		expect((await rawRequest(portal.port, '/healthz')).status).toBe(200);
		await slow;
	});

	it('a connection kept alive after a body refused halfway serves its next request', async () => {
		// One connection, kept alive, as a browser keeps it: a chunked body over sign-in's 8 KiB is refused
		// (413) before the server has read it all, then the next request goes on the same connection.
		const agent = new Agent({ keepAlive: true, maxSockets: 1 });
		const send = (method: string, path: string, body?: Buffer) =>
			new Promise<{ status: number; reused: boolean }>((resolve, reject) => {
				const req = request(
					{
						host: '127.0.0.1',
						port: portal.port,
						method,
						path,
						agent,
						headers: { 'content-type': 'application/json' }
					},
					(res) => {
						res.resume();
						res.on('end', () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket }));
					}
				);
				req.on('error', reject);
				req.end(body);
			});
		try {
			const refused = await send('POST', '/api/auth/verify', Buffer.alloc(600 * 1024, 'a'));
			expect(refused.status).toBe(413);
			// Without reading the rest of that body the server never read this request, and the connection
			// was cut when REQUEST_TIMEOUT passed (ECONNRESET).
			expect(await send('GET', '/healthz')).toEqual({ status: 200, reused: true });
		} finally {
			agent.destroy();
		}
	});

	it.skipIf(!NGINX_BIN)(
		'nginx cuts a body trickled one byte every 20 s, and headers trickled line by line, within 10 s',
		async () => {
			const [body, headers] = await Promise.all([
				trickle(proxy!.port, { part: 'body', everyMs: 20_000, giveUpMs: 25_000 }),
				trickle(proxy!.port, { part: 'headers', everyMs: 2_000, giveUpMs: 25_000 })
			]);
			expect(body.closedAfterMs).toBeLessThan(13_000);
			expect(headers.closedAfterMs).toBeLessThan(13_000);
		}
	);
});
