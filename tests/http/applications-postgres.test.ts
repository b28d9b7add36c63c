import postgres from 'postgres';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireServerUrl, serverUrl } from '../helpers/db';
import { getPage, postForm, textOf } from '../helpers/forms';
import { createServerDatabase, type ServerDatabase } from '../helpers/postgres.js';
import { startServer, type RunningServer } from '../helpers/server';
import { signIn } from '../helpers/siwe';
import { proxyFor, type TcpProxy } from '../helpers/tcp-proxy';

// The built server on the Postgres server, through real HTTP without JavaScript.
describe.runIf(serverUrl)('applications on the Postgres server, through HTTP', () => {
	const adminA = privateKeyToAccount(generatePrivateKey());
	const adminB = privateKeyToAccount(generatePrivateKey());
	let database: ServerDatabase;
	let sql: postgres.Sql;
	let server: RunningServer;
	let proxy: TcpProxy;

	beforeAll(async () => {
		database = await createServerDatabase(requireServerUrl());
		sql = postgres(database.url, { max: 2, onnotice: () => {} });
		// Through a proxy on loopback, so one test can take the database away.
		const behind = await proxyFor(database.url);
		proxy = behind.proxy;
		await proxy.up();
		server = await startServer({
			env: { DATABASE_URL: behind.proxiedUrl, ADMIN_ADDRESSES: `${adminA.address},${adminB.address}` }
		});
	});
	afterAll(async () => {
		await server?.stop();
		await proxy?.down();
		await sql?.end();
		await database?.drop();
	});

	it('30 parallel submissions by one member: exactly 5 pass the limit and at most one application is created', async () => {
		const member = privateKeyToAccount(generatePrivateKey());
		const cookie = await signIn(server.url, member);
		const answers = await Promise.all(
			Array.from({ length: 30 }, (_, i) =>
				postForm(`${server.url}/apply`, { displayName: `Racer ${i}`, motivation: 'Fast' }, { cookie })
			)
		);
		const statuses = answers.map((a) => a.status);
		expect(statuses.filter((s) => s === 429)).toHaveLength(25);
		expect(statuses.filter((s) => s !== 429).sort()).toEqual([303, 409, 409, 409, 409]);
		const address = member.address.toLowerCase();
		const [{ n }] =
			(await sql`select count(*)::int as n from applications where applicant_address = ${address}`) as unknown as [
				{ n: number }
			];
		expect(n).toBe(1);
		const [{ count }] =
			(await sql`select count from rate_limit_counters where subject = ${address} and action = 'submitApplication'`) as unknown as [
				{ count: number }
			];
		expect(count).toBe(30);
	}, 60_000);

	it('two admins moving the same application at once: one 303, one 409, one audit row', async () => {
		const [cookieA, cookieB] = [await signIn(server.url, adminA), await signIn(server.url, adminB)];
		for (let round = 0; round < 5; round++) {
			const member = privateKeyToAccount(generatePrivateKey());
			expect(
				(
					await postForm(
						`${server.url}/apply`,
						{ displayName: `Contested ${round}`, motivation: 'x' },
						{ cookie: await signIn(server.url, member) }
					)
				).status
			).toBe(303);
			const [{ id }] =
				(await sql`select id from applications where applicant_address = ${member.address.toLowerCase()}`) as unknown as [
					{ id: string }
				];
			const [a, b] = await Promise.all([
				postForm(
					`${server.url}/admin?/transition`,
					{ applicationId: id, field: 'review', to: 'approved' },
					{ cookie: cookieA }
				),
				postForm(
					`${server.url}/admin?/transition`,
					{ applicationId: id, field: 'review', to: 'rejected', reason: 'Not a fit' },
					{ cookie: cookieB }
				)
			]);
			expect([a.status, b.status].sort()).toEqual([303, 409]);
			const events = await sql`select executor_address, to_state from application_events where application_id = ${id}`;
			expect(events).toHaveLength(1);
			const winner = a.status === 303 ? adminA : adminB;
			expect(events[0]!.executor_address).toBe(winner.address.toLowerCase());
			const [{ review }] = (await sql`select review from applications where id = ${id}`) as unknown as [
				{ review: string }
			];
			expect(review).toBe(events[0]!.to_state);
		}
	}, 60_000);

	it('while the database is away, the pages and actions answer 503 within seconds, and work again once it is back', async () => {
		const member = privateKeyToAccount(generatePrivateKey());
		const cookie = await signIn(server.url, member);
		const adminCookie = await signIn(server.url, adminA);
		await proxy.down();
		try {
			for (const request of [
				() => getPage(`${server.url}/apply`, cookie),
				() => getPage(`${server.url}/checkin`, cookie),
				() => getPage(`${server.url}/admin`, adminCookie),
				() => postForm(`${server.url}/checkin`, { note: 'offline' }, { cookie }),
				() => postForm(`${server.url}/apply`, { displayName: 'Offline', motivation: 'x' }, { cookie })
			]) {
				const started = Date.now();
				const page = await request();
				expect(page.status).toBe(503);
				expect(textOf(page.body)).toMatch(/database is unavailable/i);
				expect(Date.now() - started).toBeLessThan(8_000);
			}
			// However long it stays away: each attempt to reach it is one more failure in a row, and postgres.js
			// waited longer after each (3^n/100 s, up to 20 s) before the next query could fail.
			for (let i = 0; i < 10; i++) {
				const started = Date.now();
				const page = await postForm(`${server.url}/checkin`, { note: `offline ${i}` }, { cookie });
				expect(page.status).toBe(503);
				expect(Date.now() - started, `attempt ${i}`).toBeLessThan(3_000);
			}
			// A Spanish page says so in Spanish (issue 61).
			const es = await getPage(`${server.url}/es/apply`, cookie);
			expect(es.status).toBe(503);
			expect(textOf(es.body)).toContain('La base de datos no está disponible. Inténtalo de nuevo en un momento.');
			// Hidden stays hidden: a member still gets the plain 404 from /admin without touching the database.
			expect((await getPage(`${server.url}/admin`, cookie)).status).toBe(404);
		} finally {
			await proxy.up();
		}
		let back = await getPage(`${server.url}/checkin`, cookie);
		for (let i = 0; i < 10 && back.status !== 200; i++) back = await getPage(`${server.url}/checkin`, cookie);
		expect(back.status).toBe(200);
		expect(textOf(back.body)).not.toContain('offline');
	}, 90_000);
});
