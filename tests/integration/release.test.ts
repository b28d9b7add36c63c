import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { applyMoves, transitionApplication } from '../../src/lib/server/applications/moves';
import { applicationsOf } from '../../src/lib/server/applications/record';
import { applyStanding } from '../../src/lib/server/applications/may-apply';
import {
	applications,
	memberEmails,
	notifications,
	programs,
	pushSubscriptions,
	rounds,
	webhookDeliveries
} from '../../src/lib/server/db/schema';
import { inboxOf, markRead, unreadCount } from '../../src/lib/server/notifications/inbox';
import { claimDue } from '../../src/lib/server/outbox/store';
import type { OutboxTargets } from '../../src/lib/server/platform/outbox-targets';
import { releaseDueRounds, releaseRound, stagedCounts } from '../../src/lib/server/programs/release';
import { toEndpoint } from '../../src/lib/server/webhooks/endpoints';
import { createTestDatabase, engines, type TestDatabase } from '../helpers/db';
import { addMember, adminMember, eventsOf } from '../helpers/members';

// Decisions released together (docs/application-form.md "Programmes and rounds"): in a round whose
// release_mode is `together`, an approve or reject is recorded at once but held from its applicant (the
// apply page's rows, the inbox) and from every channel of the outbox until the round is released, by an
// admin or at release_at; then each message is claimable exactly once. On both engines.
const HOOK = toEndpoint('http://127.0.0.1:9/hook');
const OUTBOX: OutboxTargets = { webhooks: [HOOK], push: true, email: true };
const QUEUES = { hashes: [HOOK.hash], channels: ['push', 'email'] as const };

describe.each(engines)('rounds released together on %s', (engine) => {
	let t: TestDatabase;
	let programId: number;
	const admin = adminMember();

	beforeAll(async () => {
		t = await createTestDatabase(engine);
		const [program] = await t.db
			.insert(programs)
			.values({ slug: 'builders', name: 'Builders' })
			.returning({ id: programs.id });
		programId = program!.id;
	});
	afterAll(() => t?.drop());
	// Each test claims only the rows it wrote.
	beforeEach(async () => {
		await t.db.delete(webhookDeliveries);
	});

	const newRound = async (releaseMode: 'immediate' | 'together', releaseAt: string | null = null) => {
		const [round] = await t.db
			.insert(rounds)
			.values({
				programId,
				name: `Cohort ${Math.random().toString(36).slice(2, 8)}`,
				opensAt: new Date(Date.now() - 86_400_000),
				releaseMode,
				releaseAt: releaseAt === null ? null : sql`${releaseAt}::timestamptz`
			})
			.returning();
		return round!;
	};

	/** A member with a push subscription and a verified e-mail, and their application in `roundId`. */
	const applicant = async (roundId: number) => {
		const member = await addMember(t.db);
		await t.db.insert(pushSubscriptions).values({
			memberAddress: member.address,
			endpoint: `https://push.example/${member.address}`,
			p256dh: 'p',
			auth: 'a'
		});
		await t.db
			.insert(memberEmails)
			.values({ address: member.address, email: `${member.address}@example.test`, verifiedAt: new Date() });
		const [application] = await t.db
			.insert(applications)
			.values({ applicantAddress: member.address, displayName: 'Ada', motivation: 'Builds', programId, roundId })
			.returning();
		return { member, id: application!.id };
	};

	const move = (applicationId: string, to: string, reason = to === 'approved' ? '' : 'Not this time.') =>
		transitionApplication(t.db, OUTBOX, null, admin, { applicationId, field: 'review', to, reason });

	/** Every due row claimed now (each claim leases what it takes: a second claim gets none of them). */
	const claim = () => claimDue(t.db, QUEUES, 1000, 60_000);

	it('an approval is recorded at once, held from the applicant and every channel until the release, then goes once', async () => {
		const round = await newRound('together');
		const { member, id } = await applicant(round.id);
		expect(await move(id, 'approved')).toMatchObject({ ok: true });

		// The admin's view: recorded, with its audit row.
		const [row] = await t.db.select().from(applications).where(eq(applications.id, id));
		expect(row!.review).toBe('approved');
		expect((await eventsOf(t.db, id)).map((e) => e.toState)).toEqual(['approved']);
		// The applicant's: still in review, no trace of the decision, nothing in the inbox.
		const [seen] = await applicationsOf(t.db, member.address);
		expect(seen).toMatchObject({ id, review: 'pending', allowlist: 'pending', distribution: 'pending' });
		expect(seen!.events).toEqual([]);
		expect(applyStanding([seen!])).toEqual({ may: 'not', reason: 'active' });
		expect(await inboxOf(t.db, member.address)).toEqual([]);
		expect(await unreadCount(t.db, member.address)).toBe(0);
		expect(await markRead(t.db, member.address, {})).toEqual({ ok: true, value: { marked: 0 } });
		// Nothing leaves: the webhook, push and e-mail rows exist, held, and no claim takes them.
		const held = await t.db.select().from(webhookDeliveries);
		expect(held.map((r) => r.channel).sort()).toEqual(['email', 'push', 'webhook']);
		expect(held.every((r) => r.heldRoundId === round.id)).toBe(true);
		expect(await claim()).toEqual([]);
		expect(await stagedCounts(t.db, round.id)).toEqual({
			approved: 1,
			rejected: 0,
			applicants: 1,
			notifications: 1,
			deliveries: 3
		});

		const released = await releaseRound(t.db, round.id, admin.address);
		expect(released).toMatchObject({
			ok: true,
			value: { roundId: round.id, releasedBy: admin.address, notifications: 1, deliveries: 3 }
		});
		const [after] = await t.db.select().from(rounds).where(eq(rounds.id, round.id));
		expect(after!.releasedAt).toBeInstanceOf(Date);
		expect(after!.releasedBy).toBe(admin.address);
		// Each message once: one claim takes all three, the next none.
		const claimed = await claim();
		expect(claimed.map((r) => r.channel).sort()).toEqual(['email', 'push', 'webhook']);
		expect(await claim()).toEqual([]);
		const hook = claimed.find((r) => r.channel === 'webhook')!;
		expect(hook.data).toMatchObject({
			applicationId: id,
			to: 'approved',
			program: { slug: 'builders', name: 'Builders' },
			round: { id: round.id, name: round.name }
		});
		// The applicant reads the decision, once, in the inbox.
		const [now] = await applicationsOf(t.db, member.address);
		expect(now).toMatchObject({ review: 'approved' });
		expect(now!.events.map((e) => e.toState)).toEqual(['approved']);
		expect(await unreadCount(t.db, member.address)).toBe(1);
		expect(await stagedCounts(t.db, round.id)).toMatchObject({ approved: 0, notifications: 0, deliveries: 0 });
		// A second release changes nothing; a decision after it goes at once.
		expect(await releaseRound(t.db, round.id, admin.address)).toMatchObject({ ok: false, status: 409 });
		const late = await applicant(round.id);
		expect(await move(late.id, 'rejected')).toMatchObject({ ok: true });
		expect((await claim()).length).toBe(3);
	});

	it('needs_info is never held; a rejection is, and a held rejection does not let its applicant apply again', async () => {
		const round = await newRound('together');
		const asked = await applicant(round.id);
		expect(await move(asked.id, 'needs_info', 'Link your project, please.')).toMatchObject({ ok: true });
		expect((await claim()).length).toBe(3);
		expect((await applicationsOf(t.db, asked.member.address))[0]).toMatchObject({ review: 'needs_info' });

		const rejected = await applicant(round.id);
		expect(await move(rejected.id, 'rejected', 'Not this time.')).toMatchObject({ ok: true });
		expect(await claim()).toEqual([]);
		const [seen] = await applicationsOf(t.db, rejected.member.address);
		expect(seen).toMatchObject({ review: 'pending', reapplyAfter: null });
		expect(applyStanding([seen!])).toEqual({ may: 'not', reason: 'active' });
		expect(await stagedCounts(t.db, round.id)).toMatchObject({ approved: 0, rejected: 1, applicants: 1 });
	});

	it('an application approved and then moved on the allowlist before the release: both held, both go at the release', async () => {
		const round = await newRound('together');
		const { member, id } = await applicant(round.id);
		expect(await move(id, 'approved')).toMatchObject({ ok: true });
		const allowlisted = await applyMoves(
			t.db,
			OUTBOX,
			admin,
			{
				applicationIds: [id],
				field: 'allowlist',
				to: 'failed',
				reason: 'Out of gas',
				txHash: '',
				from: ''
			},
			{ txCheck: null }
		);
		expect(allowlisted).toMatchObject({ ok: true });
		expect(await claim()).toEqual([]);
		expect((await applicationsOf(t.db, member.address))[0]).toMatchObject({ review: 'pending', allowlist: 'pending' });
		expect(await releaseRound(t.db, round.id, admin.address)).toMatchObject({
			ok: true,
			value: { notifications: 2, deliveries: 6 }
		});
		expect((await claim()).length).toBe(6);
	});

	it('two admins releasing at once: one release, each message claimable once', async () => {
		const round = await newRound('together');
		for (let i = 0; i < 3; i++) {
			const { id } = await applicant(round.id);
			expect(await move(id, i === 0 ? 'rejected' : 'approved')).toMatchObject({ ok: true });
		}
		const outcomes = await Promise.all([
			releaseRound(t.db, round.id, admin.address),
			releaseRound(t.db, round.id, adminMember().address),
			releaseDueRounds(t.db)
		]);
		const ok = outcomes.slice(0, 2).filter((o) => 'ok' in o && o.ok);
		expect(ok).toHaveLength(1);
		expect(outcomes.slice(0, 2).find((o) => 'ok' in o && !o.ok)).toMatchObject({ status: 409 });
		expect(ok[0]).toMatchObject({ value: { notifications: 3, deliveries: 9 } });
		const claimed = await claim();
		expect(claimed).toHaveLength(9);
		expect(new Set(claimed.map((r) => r.id)).size).toBe(9);
		expect(await claim()).toEqual([]);
	});

	it('a release_at that has passed (while no server ran) is released at the next tick; a future one is not', async () => {
		const past = await newRound('together', new Date(Date.now() - 3_600_000).toISOString());
		const future = await newRound('together', new Date(Date.now() + 3_600_000).toISOString());
		const a = await applicant(past.id);
		const b = await applicant(future.id);
		expect(await move(a.id, 'approved')).toMatchObject({ ok: true });
		expect(await move(b.id, 'approved')).toMatchObject({ ok: true });
		expect(await claim()).toEqual([]);

		const released = await releaseDueRounds(t.db);
		expect(released.map((r) => r.roundId)).toEqual([past.id]);
		expect(released[0]).toMatchObject({ releasedBy: null, notifications: 1, deliveries: 3 });
		const claimed = await claim();
		expect(claimed).toHaveLength(3);
		expect(claimed.every((r) => r.channel !== 'webhook' || r.data.applicationId === a.id)).toBe(true);
		expect(await releaseDueRounds(t.db)).toEqual([]);
		const [rows] = await Promise.all([
			t.db.select().from(notifications).where(eq(notifications.heldRoundId, future.id))
		]);
		expect(rows).toHaveLength(1);
		expect((await applicationsOf(t.db, b.member.address))[0]).toMatchObject({ review: 'pending' });
	});

	it('an immediate round is unchanged: a decision goes at once', async () => {
		const round = await newRound('immediate');
		const { member, id } = await applicant(round.id);
		expect(await move(id, 'approved')).toMatchObject({ ok: true });
		expect((await claim()).length).toBe(3);
		expect((await applicationsOf(t.db, member.address))[0]).toMatchObject({ review: 'approved' });
		expect(await stagedCounts(t.db, round.id)).toMatchObject({ approved: 0, applicants: 0 });
	});

	it('releasing an unknown round is a 400 naming `round`, nothing written', async () => {
		expect(await releaseRound(t.db, 999_999, admin.address)).toMatchObject({
			ok: false,
			status: 400,
			errors: { round: expect.any(String) as string }
		});
		expect(await releaseRound(t.db, -1, admin.address)).toMatchObject({ status: 400 });
		expect(await releaseRound(t.db, 2 ** 40, admin.address)).toMatchObject({ status: 400 });
	});
});
