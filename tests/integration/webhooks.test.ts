import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { draftOf } from '../../src/lib/forms/question-editor';
import { saveFormVersion } from '../../src/lib/server/forms/save-version';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { submitApplication } from '../../src/lib/server/applications/submit';
import { transitionApplication } from '../../src/lib/server/applications/moves';
import { checkin } from '../../src/lib/server/checkins/checkins';
import { webhookDeliveries } from '../../src/lib/server/db/schema';
import { toEndpoint } from '../../src/lib/server/webhooks/endpoints';
import { enqueueWebhookEvent, noteAdded } from '../../src/lib/server/webhooks/events';
import type { OutboxTargets } from '../../src/lib/server/platform/outbox-targets';
import { WebhookSender } from '../../src/lib/server/webhooks/deliver';
import type { WebhookEndpoint } from '../../src/lib/server/webhooks/endpoints';
import type { Channel } from '../../src/lib/server/outbox/channel';
import {
	defaultWorkerOptions,
	startOutboxWorker,
	type OutboxWorker,
	type WorkerOptions
} from '../../src/lib/server/outbox/worker';
import type { DatabaseHandle } from '../../src/lib/server/db/client';
import { createTestDatabase, engines, type TestDatabase } from '../helpers/db';
import { OUTBOX_OFF, webhooksTo } from '../helpers/outbox';
import { addMember, adminMember, randomTxHash, seedApplication } from '../helpers/members';
import { Receiver, newSecret, verified } from '../helpers/receiver';

/** The outbox's worker for the webhook channel of `endpoints` and any `others`. */
const startWebhookWorker = (
	database: DatabaseHandle,
	endpoints: readonly WebhookEndpoint[],
	secret: string,
	options: WorkerOptions,
	others: Channel[] = []
) => startOutboxWorker(database, [new WebhookSender(endpoints, secret, options.timeoutMs), ...others], options);

const fast: Partial<WorkerOptions> = {
	timeoutMs: 1_000,
	leaseMs: 2_000,
	backoffBaseMs: 20,
	backoffCapMs: 100,
	pollMs: 20,
	recordDelayMs: 20
};

describe.each(engines)('webhooks on %s', (engine) => {
	let t: TestDatabase;
	let receiver: Receiver;
	let worker: OutboxWorker | null = null;
	const secret = newSecret();
	/** WEBHOOK_URLS: the receiver alone, as the changes below write their events. */
	let outbox: OutboxTargets;

	beforeAll(async () => {
		t = await createTestDatabase(engine);
		receiver = await new Receiver().start();
		outbox = webhooksTo(receiver.url);
	});
	afterEach(async () => {
		await worker?.stop();
		worker = null;
		receiver.received.length = 0;
		receiver.respond = () => 204;
		// Each test sees only its own events.
		await t.db.delete(webhookDeliveries);
	});
	afterAll(async () => {
		await receiver?.stop();
		await t?.drop();
	});

	const start = (options: Partial<WorkerOptions> = {}) => {
		worker = startWebhookWorker(t.handle, [toEndpoint(receiver.url)], secret, {
			...defaultWorkerOptions(1),
			...fast,
			...options
		});
	};

	it('every event type arrives signed (standardwebhooks verifies it) with a body matching the change', async () => {
		const member = await addMember(t.db);
		const admin = adminMember();
		// The community's own question (optional, so that the file's other submissions need no answer).
		const saved = await saveFormVersion(t.db, admin, [
			draftOf({ key: 'city', label: 'Which city?', type: 'short_text', required: false })
		]);
		expect(saved.ok).toBe(true);
		const submitted = await submitApplication(
			t.db,
			outbox,
			member,
			{ displayName: 'Ada', motivation: 'Build', contact: '@ada' },
			{ 'answers.city': 'Paris' }
		);
		if (!submitted.ok) throw new Error('submit failed');
		const id = submitted.value.application.id;
		const asked = await transitionApplication(t.db, outbox, null, admin, {
			applicationId: id,
			field: 'review',
			to: 'needs_info',
			reason: 'Which city?'
		});
		expect(asked.ok).toBe(true);
		expect(
			(
				await submitApplication(
					t.db,
					outbox,
					member,
					{ displayName: 'Ada L', motivation: 'Build, Paris' },
					{ 'answers.city': 'Lyon' }
				)
			).ok
		).toBe(true);
		const checkedIn = await checkin(t.db, outbox, member, { note: 'at the meetup' });
		if (!checkedIn.ok) throw new Error('checkin failed');
		await t.db.transaction((tx) =>
			enqueueWebhookEvent(
				tx,
				outbox,
				noteAdded({ id: 7, applicationId: id, authorAddress: admin.address, createdAt: new Date() })
			)
		);

		start();
		const received = await receiver.until((r) => r.length >= 5);
		const events = received.map((r) => verified(secret, r));
		const byType = Object.fromEntries(events.map((e) => [e.type, e]));
		expect(Object.keys(byType).sort()).toEqual([
			'application.note_added',
			'application.resubmitted',
			'application.submitted',
			'application.transitioned',
			'checkin.created'
		]);
		// Every event about an application names its programme and round (docs/webhooks.md).
		expect(byType['application.submitted']!.data).toMatchObject({
			applicationId: id,
			program: { slug: 'membership', name: 'Member portal' },
			round: { id: expect.any(Number) as number, name: 'Open' },
			applicant: member.address,
			displayName: 'Ada',
			contact: '@ada',
			review: 'pending',
			answers: { city: 'Paris' }
		});
		expect(byType['application.transitioned']!.data).toMatchObject({
			applicationId: id,
			program: { slug: 'membership', name: 'Member portal' },
			round: { id: expect.any(Number) as number, name: 'Open' },
			field: 'review',
			from: 'pending',
			to: 'needs_info',
			reason: 'Which city?',
			txHash: null,
			executor: admin.address
		});
		expect(byType['application.resubmitted']!.data).toMatchObject({
			program: { slug: 'membership', name: 'Member portal' },
			round: { id: expect.any(Number) as number, name: 'Open' },
			displayName: 'Ada L',
			review: 'pending',
			answers: { city: 'Lyon' }
		});
		expect(byType['checkin.created']!.data).toMatchObject({ member: member.address, note: 'at the meetup' });
		// The note's text never leaves the admin screen.
		expect(Object.keys(byType['application.note_added']!.data).sort()).toEqual([
			'applicationId',
			'author',
			'createdAt',
			'noteId'
		]);
		expect(byType['application.note_added']!.data).toMatchObject({
			applicationId: id,
			noteId: '7',
			author: admin.address
		});
		for (const e of events) expect(Date.parse(e.timestamp)).toBeGreaterThan(Date.now() - 60_000);
		// A signature made with another secret does not verify.
		expect(() => verified(newSecret(), received[0]!)).toThrow();
		await expect
			.poll(async () => (await t.db.select().from(webhookDeliveries)).map((r) => [r.status, r.attempts, r.lastStatus]))
			.toEqual(Array(5).fill(['delivered', 1, 204]));
	});

	it('writes no event for a change that rolled back: a refused move, a 409 race, a failed insert', async () => {
		const before = (await t.db.select().from(webhookDeliveries)).length;
		const member = await addMember(t.db);
		const app = await seedApplication(t.db, member.address, { review: 'approved' });
		// Refused by the transitions table.
		expect(
			await transitionApplication(t.db, outbox, null, adminMember(), {
				applicationId: app.id,
				field: 'review',
				to: 'rejected',
				reason: 'x'
			})
		).toMatchObject({ status: 409 });
		// A stale from-state (another admin moved it first).
		expect(
			await transitionApplication(t.db, outbox, null, adminMember(), {
				applicationId: app.id,
				field: 'allowlist',
				to: 'added',
				txHash: randomTxHash(),
				from: 'failed'
			})
		).toMatchObject({ status: 409 });
		// A second active application (the unique index refuses it inside the transaction).
		expect(await submitApplication(t.db, outbox, member, { displayName: 'B', motivation: 'again' })).toMatchObject({
			status: 409
		});
		// A failed insert after the outbox row: the whole transaction rolls back.
		await expect(
			t.db.transaction(async (tx) => {
				await enqueueWebhookEvent(
					tx,
					outbox,
					noteAdded({ id: 1, applicationId: app.id, authorAddress: member.address, createdAt: new Date() })
				);
				throw new Error('the change failed');
			})
		).rejects.toThrow('the change failed');
		// A member row that is gone: the check-in insert fails and takes its event with it.
		expect(
			await checkin(t.db, outbox, { address: '0x' + '1'.repeat(40), isAdmin: false }, { note: 'x' })
		).toMatchObject({
			status: 401
		});
		expect((await t.db.select().from(webhookDeliveries)).length).toBe(before);
	});

	it('a receiver down for its first three attempts gets the event on the fourth; each attempt is recorded', async () => {
		receiver.respond = (_, n) => (n < 3 ? 503 : 200);
		const member = await addMember(t.db);
		const result = await checkin(t.db, outbox, member, { note: 'retry me' });
		start();
		await receiver.until((r) => r.length >= 4);
		const ids = new Set(receiver.received.map((r) => r.headers['webhook-id']));
		expect(ids.size).toBe(1);
		await expect.poll(async () => (await rowFor(result.ok ? result.value.id : ''))?.status).toBe('delivered');
		const row = await rowFor(result.ok ? result.value.id : '');
		expect(row).toMatchObject({ attempts: 4, lastStatus: 200 });
		expect(row!.attemptLog.map((a) => a.status)).toEqual([503, 503, 503, 200]);
	});

	it('a sender that throws is a failed attempt, retried, and set aside after throwing the same way 5 times; the other rows are delivered', async () => {
		// A channel row its sender cannot send (issue 54: push keys no ECDH takes): the sender throws each time.
		const [poisoned] = await t.db
			.insert(webhookDeliveries)
			.values({
				eventId: randomUUID(),
				eventType: 'notification.push',
				data: { notificationId: 1, subscriptionId: 1 },
				channel: 'push'
			})
			.returning({ id: webhookDeliveries.id });
		let thrown = 0;
		const push: Channel = {
			name: 'push',
			queues: [{ urlHash: null, paced: false }],
			send: () => {
				thrown++;
				return Promise.reject(Object.assign(new Error('Public key is not valid 0xsecret'), { code: 'ERR_BAD_KEY' }));
			},
			close: () => Promise.resolve()
		};
		const member = await addMember(t.db);
		const result = await checkin(t.db, outbox, member, { note: 'deliver me' });
		worker = startWebhookWorker(t.handle, [toEndpoint(receiver.url)], secret, { ...defaultWorkerOptions(1), ...fast }, [
			push
		]);
		await expect
			.poll(async () => (await rowFor(result.ok ? result.value.id : ''))?.status, { timeout: 10_000 })
			.toBe('delivered');
		const row = async () =>
			(await t.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, poisoned!.id)))[0]!;
		await expect.poll(async () => (await row()).status, { timeout: 10_000 }).toBe('failed');
		const failed = await row();
		expect(failed).toMatchObject({ attempts: 5, lastError: 'the sender failed (ERR_BAD_KEY)' });
		expect(failed.setAsideAt).toBeInstanceOf(Date);
		expect(failed.attemptLog.map((a) => a.error)).toEqual(Array(5).fill('the sender failed (ERR_BAD_KEY)'));
		// Set aside: not tried again, though its retry window is far from over.
		await new Promise((r) => setTimeout(r, 300));
		expect(thrown).toBe(5);
		expect(JSON.stringify(failed)).not.toContain('0xsecret');
	});

	it('a receiver that answers 410 Gone is not tried again', async () => {
		receiver.respond = () => 410;
		const member = await addMember(t.db);
		const result = await checkin(t.db, outbox, member, {});
		start();
		await receiver.until((r) => r.length >= 1);
		await expect.poll(async () => (await rowFor(result.ok ? result.value.id : ''))?.status).toBe('failed');
		await new Promise((r) => setTimeout(r, 300));
		expect(receiver.received).toHaveLength(1);
		expect(await rowFor(result.ok ? result.value.id : '')).toMatchObject({ attempts: 1, lastStatus: 410 });
	});

	it('two admins moving the same application at once: one event, for the move that won', async () => {
		const member = await addMember(t.db);
		const app = await seedApplication(t.db, member.address);
		const moves = await Promise.all([
			transitionApplication(t.db, outbox, null, adminMember(), {
				applicationId: app.id,
				field: 'review',
				to: 'approved'
			}),
			transitionApplication(t.db, outbox, null, adminMember(), {
				applicationId: app.id,
				field: 'review',
				to: 'rejected',
				reason: 'No'
			})
		]);
		const won = moves.filter((m) => m.ok);
		expect(won).toHaveLength(1);
		expect(moves.filter((m) => !m.ok)).toMatchObject([{ status: 409 }]);
		const rows = (await t.db.select().from(webhookDeliveries)).filter((r) => r.data.applicationId === app.id);
		expect(rows.map((r) => r.data.to)).toEqual([won[0]!.ok && won[0]!.value.application.review]);
	});

	it('keeps trying for the retry window only, then marks the delivery failed', async () => {
		receiver.respond = () => 500;
		const member = await addMember(t.db);
		const result = await checkin(t.db, outbox, member, { note: 'never arrives' });
		// A window of several backoffs (20-100 ms): on a loaded machine the first attempt alone took 300 ms.
		start({ retryWindowMs: 1_500 });
		await expect
			.poll(async () => (await rowFor(result.ok ? result.value.id : ''))?.status, { timeout: 10_000 })
			.toBe('failed');
		const row = await rowFor(result.ok ? result.value.id : '');
		expect(row!.attempts).toBeGreaterThan(1);
		expect(row!.attemptLog).toHaveLength(row!.attempts);
		expect(row).toMatchObject({ lastStatus: 500, lastError: 'HTTP 500' });
		const mine = () => receiver.received.filter((r) => r.headers['webhook-id'] === row!.eventId).length;
		const seen = mine();
		expect(seen).toBe(row!.attempts);
		await new Promise((r) => setTimeout(r, 300));
		expect(mine()).toBe(seen);
	});

	it('a Retry-After beyond the retry window fails that delivery and records the rest of its batch', async () => {
		// 1e13 s from now is past any timestamp Postgres can hold: taken as it is, it broke the whole record.
		receiver.respond = (request) =>
			request.body.includes('"note":"far"') ? { status: 429, headers: { 'retry-after': '1e13' } } : 204;
		const member = await addMember(t.db);
		const far = await checkin(t.db, outbox, member, { note: 'far' });
		const near = await checkin(t.db, outbox, await addMember(t.db), { note: 'near' });
		start({ recordDelayMs: 200 });
		await expect.poll(async () => (await rowFor(far.ok ? far.value.id : ''))?.status).toBe('failed');
		expect(await rowFor(far.ok ? far.value.id : '')).toMatchObject({ attempts: 1, lastStatus: 429 });
		await expect.poll(async () => (await rowFor(near.ok ? near.value.id : ''))?.status).toBe('delivered');
		expect(receiver.received).toHaveLength(2);
	});

	it('a receiver that does not answer in time is recorded as such and tried again', async () => {
		receiver.respond = (_, n) => (n === 0 ? 'hang' : 204);
		const member = await addMember(t.db);
		const result = await checkin(t.db, outbox, member, {});
		start({ timeoutMs: 200 });
		await expect.poll(async () => (await rowFor(result.ok ? result.value.id : ''))?.status).toBe('delivered');
		const row = await rowFor(result.ok ? result.value.id : '');
		expect(row!.attemptLog.map((a) => [a.status, a.error])).toEqual([
			[null, 'no answer within 0.2 s'],
			[204, null]
		]);
	});

	describe('a Discord channel', () => {
		// The receiver's URL, sent as Discord's messages are (a loopback URL is otherwise a standard endpoint).
		const startChat = () => {
			worker = startWebhookWorker(t.handle, [{ ...toEndpoint(receiver.url), format: 'discord' }], secret, {
				...defaultWorkerOptions(1),
				...fast
			});
		};
		/** Check-ins of `n` members, one after the other: events in a known order, told apart by their notes. */
		const checkIns = async (n: number, to = outbox) => {
			const ids: string[] = [];
			for (let i = 0; i < n; i++) {
				const result = await checkin(t.db, to, await addMember(t.db), { note: `message ${i}` });
				if (!result.ok) throw new Error('check-in refused');
				ids.push((await rowFor(result.value.id))!.eventId);
			}
			return ids;
		};
		const idsReceived = () => receiver.received.map((r) => r.headers['webhook-id']);

		it('gets one message at a time, in the order of the events, paced by its rate-limit headers (no 429)', async () => {
			// Discord's way: a bucket of 2 requests that fills again 300 ms after it was first drawn from,
			// told in X-RateLimit-Remaining and X-RateLimit-Reset-After; a request on an empty bucket gets 429.
			let tokens = 0;
			let resetAt = 0;
			let refused = 0;
			receiver.respond = () => {
				const now = Date.now();
				if (now >= resetAt) [tokens, resetAt] = [2, now + 300];
				const resetAfter = ((resetAt - now) / 1000).toFixed(3);
				if (tokens === 0) {
					refused++;
					return { status: 429, headers: { 'retry-after': resetAfter } };
				}
				tokens--;
				const headers = { 'x-ratelimit-remaining': String(tokens), 'x-ratelimit-reset-after': resetAfter };
				return { status: 204, headers, delayMs: 20 };
			};
			receiver.maxInFlight = 0;
			const events = await checkIns(6);
			startChat();
			await receiver.until((r) => r.length >= 6);
			await expect
				.poll(async () => (await t.db.select().from(webhookDeliveries)).every((r) => r.status === 'delivered'))
				.toBe(true);
			expect(idsReceived()).toEqual(events);
			const contents = receiver.received.map((r) => (JSON.parse(r.body) as { content: string }).content);
			expect(contents.map((c) => /message (\d)/.exec(c)?.[1])).toEqual(['0', '1', '2', '3', '4', '5']);
			expect(receiver.maxInFlight).toBe(1);
			expect(refused).toBe(0);
		});

		it('beside a bot: the channel gets its messages one at a time in order, the bot gets all of them', async () => {
			const bot = await new Receiver().start('/bot');
			const channel = { ...toEndpoint(receiver.url), format: 'discord' as const };
			const both = { ...OUTBOX_OFF, webhooks: [toEndpoint(bot.url), channel] };
			try {
				receiver.respond = () => ({ status: 204, delayMs: 20 });
				bot.respond = () => ({ status: 204, delayMs: 20 });
				receiver.maxInFlight = 0;
				const events = await checkIns(5, both);
				worker = startWebhookWorker(t.handle, [toEndpoint(bot.url), channel], secret, {
					...defaultWorkerOptions(1),
					...fast
				});
				await receiver.until((r) => r.length >= 5);
				await bot.until((r) => r.length >= 5);
				expect(idsReceived()).toEqual(events);
				expect(receiver.maxInFlight).toBe(1);
				expect(bot.received.map((r) => r.headers['webhook-id']).sort()).toEqual([...events].sort());
				expect(bot.maxInFlight).toBeGreaterThan(1);
			} finally {
				await bot.stop();
			}
		});

		it("a claim that fails once the channel's oldest message is claimed does not stall the channel", async () => {
			const bot = await new Receiver().start('/bot');
			const channel = { ...toEndpoint(receiver.url), format: 'discord' as const };
			const both = { ...OUTBOX_OFF, webhooks: [toEndpoint(bot.url), channel] };
			try {
				const events = await checkIns(3, both);
				// The bot's claim (the only one that builds a SELECT) fails the first time, right after the
				// channel's own claim went through.
				let failures = 1;
				const db = new Proxy(t.handle.db, {
					get(target, key, self) {
						if (key === 'select' && failures-- > 0) throw new Error('the claim failed');
						return Reflect.get(target, key, self) as unknown;
					}
				});
				worker = startWebhookWorker({ ...t.handle, db }, [toEndpoint(bot.url), channel], secret, {
					...defaultWorkerOptions(1),
					...fast
				});
				await receiver.until((r) => r.length >= 3);
				expect(idsReceived()).toEqual(events);
				await bot.until((r) => r.length >= 3);
			} finally {
				await bot.stop();
			}
		});

		it('a message refused with 429 is sent again after Retry-After, before the ones after it', async () => {
			receiver.respond = (_, n) => (n === 0 ? { status: 429, headers: { 'retry-after': '1.5' } } : 204);
			const events = await checkIns(3);
			startChat();
			await receiver.until((r) => r.length >= 4);
			expect(idsReceived()).toEqual([events[0], events[0], events[1], events[2]]);
			await expect
				.poll(async () => (await t.db.select().from(webhookDeliveries)).every((r) => r.status === 'delivered'))
				.toBe(true);
			const first = (await t.db.select().from(webhookDeliveries)).find((r) => r.eventId === events[0]);
			expect(first!.attemptLog.map((a) => a.status)).toEqual([429, 204]);
			// Sent again after the Retry-After, not after the test's fast backoff.
			const [refusedAt, deliveredAt] = first!.attemptLog.map((a) => Date.parse(a.at));
			expect(deliveredAt! - refusedAt!).toBeGreaterThanOrEqual(1400);
		});
	});

	it('writes nothing to the outbox when WEBHOOK_URLS is unset', async () => {
		const before = (await t.db.select().from(webhookDeliveries)).length;
		const member = await addMember(t.db);
		expect((await submitApplication(t.db, OUTBOX_OFF, member, { displayName: 'Off', motivation: 'quiet' })).ok).toBe(
			true
		);
		expect((await checkin(t.db, OUTBOX_OFF, member, {})).ok).toBe(true);
		expect((await t.db.select().from(webhookDeliveries)).length).toBe(before);
	});

	it('settled rows older than the keeping time are deleted; pending ones stay', async () => {
		const member = await addMember(t.db);
		await checkin(t.db, outbox, member, { note: 'old and delivered' });
		await checkin(t.db, outbox, member, { note: 'old and pending' });
		await t.db
			.update(webhookDeliveries)
			.set({ occurredAt: new Date(Date.now() - 40 * 86_400_000), nextAttemptAt: new Date(Date.now() + 3_600_000) });
		const delivered = await rowForNote('old and delivered');
		await t.db.update(webhookDeliveries).set({ status: 'delivered' }).where(eq(webhookDeliveries.id, delivered!.id));
		start();
		await expect.poll(async () => (await rowForNote('old and delivered')) ?? null).toBeNull();
		expect(await rowForNote('old and pending')).toMatchObject({ status: 'pending' });
	});

	async function rowForNote(note: string) {
		const rows = await t.db.select().from(webhookDeliveries);
		return rows.find((r) => r.data.note === note);
	}

	async function rowFor(checkinId: string) {
		const rows = await t.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventType, 'checkin.created'));
		return rows.find((r) => r.data.checkinId === checkinId);
	}
});
