// A request that fails unexpectedly (a 500) is logged once as a JSON error line carrying the request
// id the answer sent (x-request-id), beside its request line; neither holds the cookie, the secrets or
// the values the failed query was given.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin } from '../helpers/auth';
import { engines } from '../helpers/db';
import { getPage } from '../helpers/forms';
import { seededDatabase, type SeededDatabase } from '../helpers/insights-seed';
import { startServer, TEST_SESSION_PASSWORD, type RunningServer } from '../helpers/server';
import { signIn } from '../helpers/siwe';

const SEARCH = 'searched-for-text-7f3a';

describe.each(engines)('the log of a 500 on %s', (engine) => {
	let database: SeededDatabase;
	let server: RunningServer;
	beforeAll(async () => {
		database = await seededDatabase(engine);
		// A fault the portal cannot expect: the table /admin reads is not where the code looks for it.
		await database.run('alter table applications rename to applications_elsewhere');
		server = await startServer({ env: { ...database.env, ADMIN_ADDRESSES: admin.address } });
	}, 180_000);
	afterAll(async () => {
		await server?.stop();
		await database?.drop();
	});

	it('one error line with the request id of the 500 and the database reason, and no secret, cookie or query value', async () => {
		const cookie = await signIn(server.url, admin);
		const page = await getPage(`${server.url}/admin?q=${SEARCH}`, cookie);
		expect(page.status).toBe(500);
		expect(page.body).not.toContain('applications');
		const requestId = page.headers.get('x-request-id');
		expect(requestId).toMatch(/^[0-9a-f-]{36}$/);

		await new Promise((r) => setTimeout(r, 300)); // the logger writes asynchronously
		const output = server.output();
		const lines = output
			.split('\n')
			.filter((l) => l.startsWith('{'))
			.map((l) => JSON.parse(l) as Record<string, unknown>);
		const mine = lines.filter((l) => l.requestId === requestId);
		const errors = mine.filter((l) => l.level === 'error');
		expect(errors).toHaveLength(1);
		expect(errors[0]).toMatchObject({ msg: 'request failed', route: '/admin', status: 500 });
		expect(errors[0]!.fault).toMatch(/relation "applications" does not exist.*\(SQLSTATE 42P01\)/);
		expect(mine.filter((l) => l.level === 'info')).toEqual([
			expect.objectContaining({ msg: 'request', route: '/admin', method: 'GET', status: 500 })
		]);

		const cookieValue = cookie.split('=').slice(1).join('=').split(';')[0]!;
		for (const secret of [TEST_SESSION_PASSWORD, cookieValue, SEARCH]) expect(output).not.toContain(secret);
	});
});
