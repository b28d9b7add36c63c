import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createDb, type DatabaseHandle } from '../../src/lib/server/db/client';
import { webhookDeliveries } from '../../src/lib/server/db/schema';
import { enqueueWebhookEvents, type WebhookEvent } from '../../src/lib/server/webhooks/events';
import { requireServerUrl, serverUrl } from '../helpers/db';
import { webhooksTo } from '../helpers/outbox';
import { createServerDatabase, type ServerDatabase } from '../helpers/postgres.js';
import { getPage, postForm } from '../helpers/forms';
import { Receiver, newSecret, verified } from '../helpers/receiver';
import { startServer, type RunningServer } from '../helpers/server';
import { signIn, testAccount } from '../helpers/siwe';
import { proxyFor } from '../helpers/tcp-proxy';

// Through the built server (`npm run build` first): the worker started by hooks.server.ts init.
const secret = newSecret();
const servers: RunningServer[] = [];
const receivers: Receiver[] = [];
afterAll(async () => {
	await Promise.all(servers.map((s) => s.stop()));
	await Promise.all(receivers.map((r) => r.stop()));
});
async function start(env: Record<string, string | undefined>) {
	const server = await startServer({ env: { WEBHOOK_SECRET: secret, ...env } });
	servers.push(server);
	return server;
}
async function receiver(path?: string) {
	const r = await new Receiver().start(path);
	receivers.push(r);
	return r;
}
const checkinEvent = (n: number): WebhookEvent => ({
	type: 'checkin.created',
	data: { checkinId: `c-${n}`, member: '0x' + '2'.repeat(40), note: `#${n}`, createdAt: new Date().toISOString() }
});

describe('the built server with WEBHOOK_URLS', () => {
	const admin = testAccount('admin');

	it('a check-in through the page reaches the receiver signed; /admin/webhooks shows it by host and retries a failed one', async () => {
		const hook = await receiver('/hooks/secret-token-path');
		hook.respond = (_, n) => (n === 0 ? 410 : 204);
		const server = await start({ WEBHOOK_URLS: hook.url, ADMIN_ADDRESSES: admin.address });
		const member = privateKeyToAccount(generatePrivateKey());
		const cookie = await signIn(server.url, member);
		expect((await postForm(`${server.url}/checkin`, { note: 'hello <b>there</b>' }, { cookie })).status).toBe(303);

		const [first] = await hook.until((r) => r.length >= 1);
		expect(verified(secret, first!)).toMatchObject({
			type: 'checkin.created',
			data: { member: member.address.toLowerCase(), note: 'hello <b>there</b>' }
		});

		// 410 Gone: failed, not retried; an admin sees it by host only and retries it.
		const adminCookie = await signIn(server.url, admin);
		// (The help text says "Failed ones can be sent again": wait for the row's own retry form.)
		await expect
			.poll(async () => (await getPage(`${server.url}/admin/webhooks`, adminCookie)).body)
			.toMatch(/name="deliveryId"/);
		const page = await getPage(`${server.url}/admin/webhooks`, adminCookie);
		expect(page.status).toBe(200);
		expect(page.body).toMatch(/<span class="status failed[^"]*">Failed<\/span>/);
		expect(page.body).toContain(new URL(hook.url).host);
		expect(page.body).not.toContain('secret-token-path');
		const id = /name="deliveryId" value="(\d+)"/.exec(page.body)?.[1];
		expect(id).toBeDefined();
		// Hidden from members, as all of /admin is.
		expect((await getPage(`${server.url}/admin/webhooks`, cookie)).status).toBe(404);
		expect((await postForm(`${server.url}/admin/webhooks?/retry`, { deliveryId: id! }, { cookie })).status).toBe(404);

		expect(
			(await postForm(`${server.url}/admin/webhooks?/retry`, { deliveryId: id! }, { cookie: adminCookie })).status
		).toBe(303);
		const [, again] = await hook.until((r) => r.length >= 2);
		expect(again!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
		await expect
			.poll(async () => (await getPage(`${server.url}/admin/webhooks`, adminCookie)).body)
			.toMatch(/<span class="status delivered[^"]*">Delivered<\/span>/);
		// Only a failed delivery can be retried.
		expect(
			(await postForm(`${server.url}/admin/webhooks?/retry`, { deliveryId: id! }, { cookie: adminCookie })).status
		).toBe(409);
		expect(
			(await postForm(`${server.url}/admin/webhooks?/retry`, { deliveryId: 'x' }, { cookie: adminCookie })).status
		).toBe(400);
	});
});

describe.runIf(serverUrl)('the built server on a Postgres server', () => {
	let database: ServerDatabase;
	let url: string;
	let direct: DatabaseHandle;
	beforeAll(async () => {
		database = await createServerDatabase(requireServerUrl());
		url = database.url;
		direct = createDb({ databaseUrl: url, pgliteDataDir: '' }, { max: 4 });
	});
	afterAll(async () => {
		await direct?.close();
		await database?.drop();
	});

	/** Writes events to the outbox the way a change does, addressed to `hook`. */
	async function enqueue(hook: Receiver, events: WebhookEvent[]) {
		await direct.db.transaction((tx) => enqueueWebhookEvents(tx, webhooksTo(hook.url), events));
	}

	it('a process killed mid-delivery: the event is delivered after a restart, with the same webhook-id', async () => {
		const hook = await receiver();
		hook.respond = (_, n) => (n === 0 ? 'hang' : 204);
		const env = { DATABASE_URL: url, WEBHOOK_URLS: hook.url, WEBHOOK_TIMEOUT_SECONDS: '1' };
		const first = await start(env);
		await enqueue(hook, [checkinEvent(0)]);
		await hook.until((r) => r.length >= 1);
		first.process.kill('SIGKILL');
		await first.exited;
		await start(env);
		const [killed, delivered] = await hook.until((r) => r.length >= 2);
		expect(delivered!.headers['webhook-id']).toBe(killed!.headers['webhook-id']);
		expect(verified(secret, delivered!).data).toMatchObject({ checkinId: 'c-0' });
		await expect
			.poll(async () => (await direct.db.select().from(webhookDeliveries)).map((r) => r.status))
			.toEqual(['delivered']);
	});

	it('three processes on one database deliver 500 events: none lost, none sent twice', async () => {
		await direct.db.delete(webhookDeliveries);
		const hook = await receiver();
		const env = { DATABASE_URL: url, WEBHOOK_URLS: hook.url };
		await Promise.all([start(env), start(env), start(env)]);
		for (let batch = 0; batch < 10; batch++) {
			await enqueue(
				hook,
				Array.from({ length: 50 }, (_, i) => checkinEvent(batch * 50 + i))
			);
		}
		await hook.until((r) => new Set(r.map((x) => x.headers['webhook-id'])).size >= 500, 30_000);
		await new Promise((r) => setTimeout(r, 1500));
		const ids = hook.received.map((r) => r.headers['webhook-id']);
		expect(new Set(ids).size).toBe(500);
		expect(ids).toHaveLength(500);
		const rows = await direct.db.select().from(webhookDeliveries);
		expect(rows.filter((r) => r.status === 'delivered' && r.attempts === 1)).toHaveLength(500);
	}, 60_000);

	it('the database away: requests answer 503, the worker waits and delivers once it is back', async () => {
		const { proxy, proxiedUrl } = await proxyFor(url);
		await proxy.up();
		const hook = await receiver();
		const server = await start({ DATABASE_URL: proxiedUrl, WEBHOOK_URLS: hook.url });
		expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
		await proxy.down();
		await enqueue(hook, [checkinEvent(1000)]);
		expect((await fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(10_000) })).status).toBe(503);
		await new Promise((r) => setTimeout(r, 1500));
		expect(hook.received).toHaveLength(0);
		await proxy.up();
		const [got] = await hook.until((r) => r.length >= 1);
		expect(verified(secret, got!).data).toMatchObject({ checkinId: 'c-1000' });
		await proxy.down();
	});
});
