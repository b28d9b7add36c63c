// The cron run of webhook deliveries (GET /api/cron/webhooks on Vercel) against a real database: it
// sends what is due and records it, and runs side by side never send the same attempt twice.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { checkin } from '../../src/lib/server/checkins/checkins';
import { webhookDeliveries } from '../../src/lib/server/db/schema';
import { deliverDueNow, outboxTargets, type DeliveryConfig } from '../../src/lib/server/platform/deliveries';
import type { OutboxTargets } from '../../src/lib/server/platform/outbox-targets';
import { createTestDatabase, engines, type TestDatabase } from '../helpers/db';
import { addMember } from '../helpers/members';
import { Receiver, newSecret, verified } from '../helpers/receiver';

describe.each(engines)('a cron run of webhook deliveries on %s', (engine) => {
	let t: TestDatabase;
	let receiver: Receiver;
	const secret = newSecret();
	let outbox: OutboxTargets;
	const delivery = (): DeliveryConfig => ({
		webhooks: { urls: [receiver.url], secret, timeoutSeconds: 2 },
		notifications: { origin: 'http://127.0.0.1', push: null, pushServiceOrigins: [], mail: null },
		sessionPassword: ''
	});

	beforeAll(async () => {
		t = await createTestDatabase(engine);
		receiver = await new Receiver().start();
		// The check-ins write their events for the configuration the cron run sends by.
		outbox = outboxTargets(delivery());
	});
	afterEach(async () => {
		receiver.received.length = 0;
		receiver.respond = () => 204;
		await t.db.delete(webhookDeliveries);
	});
	afterAll(async () => {
		await receiver?.stop();
		await t?.drop();
	});

	const checkIns = async (n: number) => {
		for (let i = 0; i < n; i++) await checkin(t.db, outbox, await addMember(t.db), { note: `cron ${i}` });
	};

	it('sends every due event, signed, records it delivered and answers what it did', async () => {
		await checkIns(3);
		const report = await deliverDueNow(t.handle, delivery());
		expect(report).toMatchObject({ claimed: 3, attempted: 3, delivered: 3, notDelivered: 0, budgetSpent: false });
		expect(receiver.received).toHaveLength(3);
		for (const request of receiver.received)
			expect(verified(secret, request)).toMatchObject({ type: 'checkin.created' });
		const rows = await t.db.select().from(webhookDeliveries);
		expect(rows.map((r) => r.status)).toEqual(['delivered', 'delivered', 'delivered']);
		// Nothing is due any more: the next run sends nothing.
		expect(await deliverDueNow(t.handle, delivery())).toMatchObject({ claimed: 0 });
		expect(receiver.received).toHaveLength(3);
	});

	it('a receiver that fails is recorded for a retry, due after the backoff, not sent again in the run', async () => {
		receiver.respond = () => 503;
		await checkIns(1);
		const report = await deliverDueNow(t.handle, delivery());
		expect(report).toMatchObject({ claimed: 1, delivered: 0, notDelivered: 1 });
		const [row] = await t.db.select().from(webhookDeliveries);
		expect(row).toMatchObject({ status: 'pending', attempts: 1, lastStatus: 503 });
		expect(row!.nextAttemptAt.getTime()).toBeGreaterThan(Date.now());
	});

	it('runs side by side never send the same attempt twice', async () => {
		receiver.respond = () => ({ status: 204, delayMs: 30 });
		await checkIns(20);
		const reports = await Promise.all([1, 2, 3].map(() => deliverDueNow(t.handle, delivery())));
		expect(reports.reduce((sum, r) => sum + r.attempted, 0)).toBe(20);
		const ids = receiver.received.map((r) => r.headers['webhook-id']);
		expect(ids).toHaveLength(20);
		expect(new Set(ids).size).toBe(20);
		const rows = await t.db.select().from(webhookDeliveries);
		expect(rows.every((r) => r.status === 'delivered' && r.attempts === 1)).toBe(true);
	});

	it('does nothing when WEBHOOK_URLS is unset', async () => {
		await checkIns(1);
		expect(await deliverDueNow(t.handle, { ...delivery(), webhooks: null })).toMatchObject({ claimed: 0 });
		expect(receiver.received).toHaveLength(0);
	});
});
