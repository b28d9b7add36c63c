// GET /api/cron/webhooks on the built Node server: Vercel Cron's Bearer CRON_SECRET or the page of an
// unknown path, for every method; with the secret, one run's report (the in-process worker delivers too).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withoutNonces } from '../helpers/csp';
import { readJson } from '../helpers/json';
import { startServer, type RunningServer } from '../helpers/server';

const CRON_SECRET = 'cron-secret-for-the-http-test-0123';

async function comparable(response: Response) {
	return { status: response.status, body: withoutNonces(await response.text()) };
}

describe('the cron endpoint on the Node server', () => {
	let withSecret: RunningServer;
	let withoutSecret: RunningServer;
	beforeAll(async () => {
		[withSecret, withoutSecret] = await Promise.all([startServer({ env: { CRON_SECRET } }), startServer()]);
	});
	afterAll(async () => {
		await Promise.all([withSecret?.stop(), withoutSecret?.stop()]);
	});

	it('answers anyone without the Bearer secret, by any method, exactly as an unknown path', async () => {
		const cases: [RunningServer, string, Record<string, string>][] = [
			[withSecret, 'GET', {}],
			[withSecret, 'GET', { authorization: 'Bearer not-the-secret-but-long' }],
			[withSecret, 'POST', { authorization: `Bearer ${CRON_SECRET}` }],
			[withSecret, 'DELETE', {}],
			[withoutSecret, 'GET', { authorization: `Bearer ${CRON_SECRET}` }],
			[withoutSecret, 'GET', { authorization: 'Bearer ' }]
		];
		for (const [server, method, headers] of cases) {
			const init = { method, headers: { accept: 'text/html', ...headers } };
			const [hidden, unknown] = await Promise.all([
				fetch(`${server.url}/api/cron/webhooks`, init),
				fetch(`${server.url}/api/cron/no-such-route`, init)
			]);
			expect(await comparable(hidden), `${method} ${JSON.stringify(headers)}`).toEqual(await comparable(unknown));
			expect(hidden.status).toBe(404);
		}
	});

	it('with the secret: 200 and what the run did (nothing here: WEBHOOK_URLS is unset); the file sweep once an hour', async () => {
		const run = () =>
			fetch(`${withSecret.url}/api/cron/webhooks`, { headers: { authorization: `Bearer ${CRON_SECRET}` } });
		const response = await run();
		expect(response.status).toBe(200);
		expect(response.headers.get('cache-control')).toBe('no-store');
		expect(await readJson(response)).toEqual({
			claimed: 0,
			attempted: 0,
			delivered: 0,
			notDelivered: 0,
			budgetSpent: false,
			durationMs: 0,
			// The first run of the hour swept the file store (nothing in it to remove).
			files: { files: 0, temporaries: 0 }
		});
		// The next run, a minute later on Vercel: the hour's sweep is done.
		expect(await readJson(await run())).toMatchObject({ claimed: 0, files: null });
	});
});
