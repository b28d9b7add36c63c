// Notifications (docs/notifications.md) at scale, on the Postgres server, in one process:
// 1. a bulk approve of 100 with Web Push and e-mail on for every applicant (one subscription and one
//    verified address each: 100 notifications and 200 outbox rows in the move's transaction) against
//    the same bulk with both channels off (the inbox rows only, which the contract writes always),
//    alternating rounds, medians; target <= 1.3x.
// 2. 1,000 notifications delivered by the worker to a loopback push service (VAPID checked, payload
//    decrypted) and to a loopback SMTP server; target <= 10 s each.
// Usage: TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx vitest bench --run bench/notifications.bench.ts
import { randomBytes } from 'node:crypto';
import webpush from 'web-push';
import { bench, describe } from 'vitest';
import { applyMoves } from '../src/lib/server/applications/moves';
import { createDb } from '../src/lib/server/db/client';
import { rowsOf } from '../src/lib/server/db/rows';
import { applications, memberEmails, members, pushSubscriptions } from '../src/lib/server/db/schema';
import { MailSender } from '../src/lib/server/notifications/mail-sender';
import { PushSender } from '../src/lib/server/notifications/push-sender';
import { recordNotifications } from '../src/lib/server/notifications/record';
import type { NotificationConfig } from '../src/lib/server/platform/notification-config';
import { defaultWorkerOptions, startOutboxWorker } from '../src/lib/server/outbox/worker';
import { MailCatcher } from '../tests/helpers/mail-catcher';
import { OUTBOX_OFF } from '../tests/helpers/outbox';
import { PushService } from '../tests/helpers/push-service';
import { createBenchDatabase } from './harness.js';

const adminUrl =
	process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const BULK = 100;
const ROUNDS = 7;
const DELIVER = 1_000;

const database = await createBenchDatabase(adminUrl);
const handle = createDb({ databaseUrl: database.url, pgliteDataDir: '' }, { max: 10 });
await handle.ready();
const db = handle.db;
const vapid = webpush.generateVAPIDKeys();
const subject = 'mailto:bench@example.test';
const push = await new PushService(vapid.publicKey, subject).start();
const mail = await new MailCatcher().start();
const config: NotificationConfig = {
	origin: 'http://127.0.0.1:1',
	push: { ...vapid, subject },
	pushServiceOrigins: [push.url],
	mail: { smtpUrl: mail.url, from: 'Bench <bench@example.test>' }
};
const admin = { address: `0x${randomBytes(20).toString('hex')}`, isAdmin: true };

/** `n` applicants with a pending application each, subscribed to push and with a verified address. */
async function applicants(n: number) {
	const addresses = Array.from({ length: n }, () => `0x${randomBytes(20).toString('hex')}`);
	await db.insert(members).values(addresses.map((address) => ({ address })));
	const apps = await db
		.insert(applications)
		.values(addresses.map((a) => ({ applicantAddress: a, displayName: 'Bench', motivation: 'Bench' })))
		.returning({ id: applications.id });
	await db.insert(pushSubscriptions).values(
		addresses.map((a, i) => {
			const sub = push.subscription(`/p/${a}/${i}`);
			return { memberAddress: a, endpoint: sub.endpoint, p256dh: sub.keys.p256dh, auth: sub.keys.auth };
		})
	);
	await db
		.insert(memberEmails)
		.values(addresses.map((a) => ({ address: a, email: `${a}@example.test`, verifiedAt: new Date() })));
	return { addresses, ids: apps.map((a) => a.id) };
}

async function bulkApprove(on: boolean): Promise<number> {
	const { ids } = await applicants(BULK);
	const started = performance.now();
	const outcome = await applyMoves(
		db,
		{ ...OUTBOX_OFF, push: on, email: on },
		admin,
		{
			applicationIds: ids,
			field: 'review',
			to: 'approved',
			reason: '',
			txHash: '',
			from: ''
		},
		{ txCheck: null }
	);
	const ms = performance.now() - started;
	if (!outcome.ok) throw new Error(outcome.message);
	return ms;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

describe('notifications', () => {
	bench(
		'bulk approve of 100: push and e-mail on vs off; then 1,000 deliveries per channel',
		async () => {
			await bulkApprove(true);
			await bulkApprove(false);
			const on: number[] = [];
			const off: number[] = [];
			for (let r = 0; r < ROUNDS; r++) {
				// Alternating order, so neither side always runs on a warmer cache.
				if (r % 2) {
					on.push(await bulkApprove(true));
					off.push(await bulkApprove(false));
				} else {
					off.push(await bulkApprove(false));
					on.push(await bulkApprove(true));
				}
			}
			console.log(
				`bulk approve of ${BULK}: on ${median(on).toFixed(1)} ms, off ${median(off).toFixed(1)} ms, ratio ${(median(on) / median(off)).toFixed(2)}x (medians of ${ROUNDS}; on ${on.map((x) => x.toFixed(0)).join(' ')}, off ${off.map((x) => x.toFixed(0)).join(' ')})`
			);
			// Deliveries so far (the bulk rounds') are left to the worker first, uncounted.
			for (const channel of ['push', 'email'] as const) {
				await drain(channel, 0);
				const { addresses } = await applicants(DELIVER);
				await recordNotifications(
					db,
					{ push: channel === 'push', email: channel === 'email' },
					addresses.map((recipient) => ({ recipient, applicationId: null, change: { kind: 'application.submitted' } }))
				);
				const ms = await drain(channel, DELIVER);
				console.log(`${DELIVER} notifications by ${channel}: ${(ms / 1000).toFixed(2)} s`);
			}
		},
		{ iterations: 1, warmupIterations: 0 }
	);
});

/** Runs the worker for `channel` until `expect` more messages arrived (or the outbox is empty); ms taken. */
async function drain(channel: 'push' | 'email', expect: number): Promise<number> {
	const options = defaultWorkerOptions(10);
	const sender =
		channel === 'push'
			? new PushSender(() => db, config, options.timeoutMs)
			: new MailSender(() => db, config, 'bench-session-password-0123456789-abcdef', options.timeoutMs);
	const count = () => (channel === 'push' ? push.pushed.length : mail.mails.length);
	const before = count();
	const started = performance.now();
	const worker = startOutboxWorker(handle, [sender], options);
	if (expect > 0) {
		while (count() - before < expect) await new Promise((r) => setTimeout(r, 20));
	} else {
		for (;;) {
			const [row] = rowsOf<{ n: number }>(
				await db.execute(
					`select count(*)::int as n from webhook_deliveries where status = 'pending' and channel = '${channel}'`
				)
			);
			if (row?.n === 0) break;
			await new Promise((r) => setTimeout(r, 200));
		}
	}
	const ms = performance.now() - started;
	await worker.stop();
	return ms;
}
