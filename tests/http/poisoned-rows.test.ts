import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import postgres from 'postgres';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgliteOptions } from '../../src/lib/server/db/embedded.js';
import { engines } from '../helpers/db';
import { getPage, postForm, textOf } from '../helpers/forms';
import { NOT_A_POINT, POISON_MAIL, THREW, startChannels, type Channels } from '../helpers/notifying-server';
import { pgliteTemplate } from '../helpers/pglite-template';
import { createServerDatabase } from '../helpers/postgres.js';
import { startServer, type RunningServer } from '../helpers/server';
import { signIn } from '../helpers/siwe';

// Issue 54: one member must not take the portal down. A row of every channel that cannot be sent (push
// keys no ECDH takes, written straight into the database since POST refuses them; a mail server that
// cuts the connection in the middle of DATA; a webhook receiver that answers garbage) is a failed
// attempt, recorded and retried, while the server keeps serving and every other row is delivered;
// also after a restart with those rows still pending. Through the built server, on the engine of
// tests/helpers/db.ts `engines`.
const admin = privateKeyToAccount(generatePrivateKey());
const HEALTHY_MAIL = 'healthy@example.test';

/** The attempts /admin/webhooks shows for the first delivery whose row mentions `needle`; 0 when none does. */
function attemptsOf(html: string, needle: string): number {
	const row = html.split('<tr').find((r) => r.includes(needle));
	return Number(/data-label="Attempts"[^>]*>\s*(\d+)/.exec(row ?? '')?.[1] ?? 0);
}

describe.each(engines)('poisoned outbox rows on %s', (engine) => {
	let server: RunningServer;
	let env: Record<string, string>;
	let channels: Channels;
	let sql: postgres.Sql | null = null;
	let cleanup: () => Promise<void> = () => Promise.resolve();
	let folder = '';

	beforeAll(async () => {
		channels = await startChannels({ webhooks: ['working', 'garbage'], dropMailTo: POISON_MAIL });
		env = { ADMIN_ADDRESSES: admin.address, ...channels.env };
		if (engine === 'postgres') {
			const database = await createServerDatabase(process.env.TEST_DATABASE_URL!, {
				prefix: 'portal_poison',
				migrate: true
			});
			env.DATABASE_URL = database.url;
			sql = postgres(database.url, { max: 1, onnotice: () => {} });
			cleanup = async () => {
				await sql?.end();
				await database.drop();
			};
		} else {
			// A folder from the migrated template: the test writes into it between two runs of the server.
			folder = mkdtempSync(path.join(tmpdir(), 'portal-poison-'));
			const pg = new PGlite({ ...pgliteOptions(folder), loadDataDir: await pgliteTemplate() });
			await pg.close();
			env.PGLITE_DATA_DIR = folder;
			cleanup = () => Promise.resolve(rmSync(folder, { recursive: true, force: true }));
		}
		server = await startServer({ env });
	}, 200_000);
	afterAll(async () => {
		await server?.stop();
		await channels?.stop();
		await cleanup();
	});

	/** SQL on the database behind the server: at once on a Postgres server; on PGlite, between two runs of it. */
	async function write(statements: string) {
		if (sql) {
			await sql.unsafe(statements);
			return;
		}
		await server.stop();
		const pg = new PGlite(pgliteOptions(folder));
		try {
			await pg.exec(statements);
		} finally {
			await pg.close();
		}
		server = await startServer({ env });
	}

	const alive = async () => {
		expect(server.process.exitCode, server.output().slice(-2000)).toBeNull();
		expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
	};
	const deliveriesHtml = async (cookie: string) => (await getPage(`${server.url}/admin/webhooks`, cookie)).body;
	const deliveriesPage = async (cookie: string) => textOf(await deliveriesHtml(cookie));

	it('the server keeps serving, retries the poisoned rows as failed attempts, and delivers every other row', async () => {
		const { push, mail } = channels;
		const receiver = channels.receiver!;
		const garbage = channels.garbage!;
		const poisoner = privateKeyToAccount(generatePrivateKey());
		const healthy = privateKeyToAccount(generatePrivateKey());
		let poisonCookie = await signIn(server.url, poisoner);
		let healthyCookie = await signIn(server.url, healthy);

		// POST refuses the subscription (a key of the right length that is no point) and a short auth.
		const good = push.subscription('/push/healthy');
		const post = (cookie: string, keys: { p256dh: string; auth: string }, endpoint = `${push.url}/push/poison`) =>
			fetch(`${server.url}/api/push/subscriptions`, {
				method: 'POST',
				headers: { 'content-type': 'application/json', cookie },
				body: JSON.stringify({ endpoint, keys })
			});
		for (const keys of [
			{ p256dh: NOT_A_POINT, auth: good.keys.auth },
			{ p256dh: good.keys.p256dh, auth: 'AAAA' }
		]) {
			const refused = await post(poisonCookie, keys);
			expect(refused.status).toBe(400);
			expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
		}
		expect((await post(healthyCookie, good.keys, good.endpoint)).status).toBe(201);

		// What POST refuses, written as an older version would have stored it; and both members' mail verified.
		const p = poisoner.address.toLowerCase();
		const h = healthy.address.toLowerCase();
		await write(`
			insert into push_subscriptions (member_address, endpoint, p256dh, auth)
				values ('${p}', '${push.url}/push/poison', '${NOT_A_POINT}', '${good.keys.auth}');
			insert into member_emails (address, email, verified_at) values
				('${p}', '${POISON_MAIL}', now()), ('${h}', '${HEALTHY_MAIL}', now());`);
		if (!sql) {
			poisonCookie = await signIn(server.url, poisoner);
			healthyCookie = await signIn(server.url, healthy);
		}
		const adminCookie = await signIn(server.url, admin);

		// The poisoned member applies first: every channel's row of theirs is due before the healthy one's.
		for (const [cookie, name] of [
			[poisonCookie, 'Pat Poison'],
			[healthyCookie, 'Hana Healthy']
		] as const)
			expect(
				(await postForm(`${server.url}/apply`, { displayName: name, motivation: 'Notify me' }, { cookie })).status
			).toBe(303);

		// Every other row is delivered: the healthy member's push and mail, both events to the working receiver.
		await push.until((pushed) => pushed.some((x) => x.path === '/push/healthy'), 30_000);
		await mail.until((mails) => mails.some((m) => JSON.stringify(m.to).includes(HEALTHY_MAIL)), 30_000);
		await expect
			.poll(() => receiver.received.filter((r) => r.body.includes('application.submitted')).length, { timeout: 30_000 })
			.toBe(2);
		expect(push.hits.get('/push/poison')).toBeUndefined();
		expect(mail.mails.some((m) => JSON.stringify(m.to).includes(POISON_MAIL))).toBe(false);

		// Each poisoned row was tried, failed, is recorded so, and waits for its next attempt; the server stays up.
		await expect
			.poll(async () => [mail.dropped > 0, garbage.hits() > 0, await deliveriesPage(adminCookie)], { timeout: 30_000 })
			.toEqual([true, true, expect.stringContaining(THREW)]);
		await alive();
		// The second attempts (backoff 2.5 to 5 s) as well: still up.
		await expect
			.poll(async () => Math.min(attemptsOf(await deliveriesHtml(adminCookie), THREW), mail.dropped), {
				timeout: 30_000
			})
			.toBeGreaterThanOrEqual(2);
		await alive();
		expect(server.output()).toContain('ERR_CRYPTO_ECDH_INVALID_PUBLIC_KEY');

		// A restart with those rows still pending: it starts, serves and goes on trying them.
		await server.stop();
		server = await startServer({ env });
		const dropped = mail.dropped;
		await expect.poll(() => mail.dropped, { timeout: 60_000 }).toBeGreaterThan(dropped);
		await alive();

		// Nothing the poisoned rows held reaches the log: not the key, not the addresses.
		expect(server.output()).not.toContain(NOT_A_POINT);
		expect(server.output()).not.toContain(POISON_MAIL);
		expect(server.output()).not.toContain(HEALTHY_MAIL);
	}, 200_000);

	it.runIf(engine === 'postgres')(
		'a row whose sender throws the same way 5 times is set aside and listed on /admin/webhooks',
		async () => {
			const adminCookie = await signIn(server.url, admin);
			// The retries' backoff (5 s doubling) made due at once: the worker tries the push row again and again.
			await expect
				.poll(
					async () => {
						await sql!`update webhook_deliveries set next_attempt_at = now()
							where channel = 'push' and status = 'pending' and attempts > 0`;
						const [row] = await sql!`select status, set_aside_at is not null as aside, attempts
							from webhook_deliveries where channel = 'push' and last_error like 'the sender failed%'`;
						return row ? { status: row.status as string, aside: row.aside as boolean } : null;
					},
					{ timeout: 60_000, interval: 500 }
				)
				.toEqual({ status: 'failed', aside: true });
			const page = await getPage(`${server.url}/admin/webhooks`, adminCookie);
			const setAside = /data-testid="set-aside"[\s\S]*?<\/section>/.exec(page.body)?.[0] ?? '';
			expect(textOf(setAside)).toContain(THREW);
			expect(textOf(setAside)).toContain('failed the same way 5 times');
			// An admin's retry takes it back for one more attempt, which throws again: set aside again.
			const id = /name="deliveryId" value="(\d+)"/.exec(setAside)![1]!;
			const [before] = await sql!`select attempts from webhook_deliveries where id = ${id}`;
			expect(
				(await postForm(`${server.url}/admin/webhooks?/retry`, { deliveryId: id }, { cookie: adminCookie })).status
			).toBe(303);
			await expect
				.poll(
					async () => {
						const [row] = await sql!`select status, set_aside_at is not null as aside, attempts
						from webhook_deliveries where id = ${id}`;
						return { ...row };
					},
					{ timeout: 20_000 }
				)
				.toEqual({ status: 'failed', aside: true, attempts: (before!.attempts as number) + 1 });
			await alive();
		},
		90_000
	);
});
