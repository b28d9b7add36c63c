// Notifications are written in the transaction of the change they tell (docs/notifications.md): one per
// application moved, with an outbox row per push subscription and verified e-mail; none for a refused
// or rolled-back move; and each member reads only their own.
import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyMoves } from '../../src/lib/server/applications/moves';
import {
	memberEmails,
	messageTemplates,
	notifications,
	pushSubscriptions,
	webhookDeliveries
} from '../../src/lib/server/db/schema';
import { submitApplication } from '../../src/lib/server/applications/submit';
import { inboxOf, markRead, unreadCount } from '../../src/lib/server/notifications/inbox';
import { rowsOf } from '../../src/lib/server/db/rows';
import { createTestDatabase, engines, type TestDatabase } from '../helpers/db';
import { OUTBOX_OFF } from '../helpers/outbox';
import { addMember, adminMember, randomTxHash, seedApplication } from '../helpers/members';

describe.each(engines)('notifications on %s', (engine) => {
	let t: TestDatabase;
	const outbox = { ...OUTBOX_OFF, push: true, email: true };
	beforeAll(async () => {
		t = await createTestDatabase(engine);
	});
	afterAll(async () => {
		await t?.drop();
	});

	const notificationsOf = (ids: string[]) =>
		t.db.select().from(notifications).where(inArray(notifications.applicationId, ids));
	const deliveriesOf = async (ids: number[]) =>
		(await t.db.select().from(webhookDeliveries)).filter((r) => ids.includes(r.data.notificationId as number));

	it('a bulk move writes one notification per application, and delivery rows for push and verified mail only', async () => {
		const members = await Promise.all(Array.from({ length: 5 }, () => addMember(t.db)));
		const apps = await Promise.all(members.map((m) => seedApplication(t.db, m.address)));
		// The first has two browsers, the second a verified address, the third an unverified one.
		await t.db.insert(pushSubscriptions).values(
			['a', 'b'].map((k) => ({
				memberAddress: members[0]!.address,
				endpoint: `https://fcm.googleapis.com/fcm/send/${k}${apps[0]!.id}`,
				p256dh: 'p',
				auth: 'a'
			}))
		);
		await t.db.insert(memberEmails).values([
			{ address: members[1]!.address, email: 'one@example.test', verifiedAt: new Date() },
			{ address: members[2]!.address, email: 'two@example.test' }
		]);
		const ids = apps.map((a) => a.id);
		const outcome = await applyMoves(
			t.db,
			outbox,
			adminMember(),
			{
				applicationIds: ids,
				field: 'review',
				to: 'needs_info',
				reason: 'Please link your project.',
				txHash: '',
				from: ''
			},
			{ txCheck: null }
		);
		expect(outcome.ok).toBe(true);
		const rows = await notificationsOf(ids);
		expect(rows).toHaveLength(5);
		for (const [i, m] of members.entries()) {
			const row = rows.find((r) => r.applicationId === apps[i]!.id)!;
			expect(row).toMatchObject({ recipientAddress: m.address, kind: 'application.transitioned', readAt: null });
			expect(row.title).toBe('The reviewers ask for more information');
			expect(row.body).toContain('Please link your project.');
		}
		const deliveries = await deliveriesOf(rows.map((r) => r.id));
		const of = (i: number) => {
			const id = rows.find((r) => r.applicationId === apps[i]!.id)!.id;
			return deliveries.filter((d) => d.data.notificationId === id).map((d) => d.channel);
		};
		expect(of(0)).toEqual(['push', 'push']);
		expect(of(1)).toEqual(['email']);
		expect([...of(2), ...of(3), ...of(4)]).toEqual([]);
		// Never the address or the endpoint in the outbox: ids only.
		expect(JSON.stringify(deliveries)).not.toMatch(/example\.test|fcm\.googleapis/);
	});

	it('a refused move writes none, and a move rolled back with its transaction writes none', async () => {
		const ok = await seedApplication(t.db, (await addMember(t.db)).address, { review: 'approved' });
		const pending = await seedApplication(t.db, (await addMember(t.db)).address);
		const move = { field: 'allowlist', to: 'added', reason: '', from: '' } as const;
		const refused = await applyMoves(
			t.db,
			outbox,
			adminMember(),
			{ ...move, applicationIds: [ok.id, pending.id], txHash: randomTxHash() },
			{ txVerified: true }
		);
		expect(refused).toMatchObject({ ok: false, status: 409 });
		expect(await notificationsOf([ok.id, pending.id])).toEqual([]);

		await expect(
			t.db.transaction(async (tx) => {
				const done = await applyMoves(
					tx,
					outbox,
					adminMember(),
					{ ...move, applicationIds: [ok.id], txHash: randomTxHash() },
					{ txVerified: true }
				);
				expect(done.ok).toBe(true);
				expect(await tx.select().from(notifications).where(eq(notifications.applicationId, ok.id))).toHaveLength(1);
				throw new Error('roll back');
			})
		).rejects.toThrow('roll back');
		expect(await notificationsOf([ok.id])).toEqual([]);
	});

	it('each member reads and marks only their own', async () => {
		const [alice, bob] = [await addMember(t.db), await addMember(t.db)];
		const [a, b] = [await seedApplication(t.db, alice.address), await seedApplication(t.db, bob.address)];
		for (const app of [a, b])
			await applyMoves(
				t.db,
				outbox,
				adminMember(),
				{
					applicationIds: [app.id],
					field: 'review',
					to: 'approved',
					reason: '',
					txHash: '',
					from: ''
				},
				{ txCheck: null }
			);
		const mine = await inboxOf(t.db, alice.address);
		expect(mine.map((n) => n.title)).toEqual(['Your application was approved']);
		const bobs = (await inboxOf(t.db, bob.address))[0]!;
		// Alice marking Bob's id changes nothing.
		expect(await markRead(t.db, alice.address, { id: String(bobs.id) })).toEqual({ ok: true, value: { marked: 0 } });
		expect(await unreadCount(t.db, bob.address)).toBe(1);
		expect(await markRead(t.db, bob.address, { id: 'x' })).toMatchObject({ ok: false, status: 400 });
		expect(await markRead(t.db, alice.address, {})).toEqual({ ok: true, value: { marked: 1 } });
		expect(await unreadCount(t.db, alice.address)).toBe(0);
		expect(await unreadCount(t.db, bob.address)).toBe(1);
	});

	it('each recipient is written to in their own language (members.locale), whoever made the move', async () => {
		const [es, ar, en] = [await addMember(t.db), await addMember(t.db), await addMember(t.db)];
		// As an outside check sets it: the locale of the member's last signed-in page visit.
		await t.db.execute(sql`update members set locale = 'es' where address = ${es.address}`);
		await t.db.execute(sql`update members set locale = 'ar' where address = ${ar.address}`);
		// The third never visited a page in another language: the default, English.
		const apps = await Promise.all([es, ar, en].map((m) => seedApplication(t.db, m.address)));
		const ids = apps.map((a) => a.id);
		const outcome = await applyMoves(
			t.db,
			outbox,
			adminMember(),
			{
				applicationIds: ids,
				field: 'review',
				to: 'needs_info',
				reason: 'Link your project.',
				txHash: '',
				from: '',
				asks: { motivation: 'Say more.' }
			},
			{ txCheck: null }
		);
		expect(outcome.ok).toBe(true);
		const rows = await notificationsOf(ids);
		const of = (id: string) => rows.find((r) => r.applicationId === id)!;
		// The reason and the comment are the admin's words: each set apart (FSI … PDI) in every language (issue 61).
		expect(of(apps[0]!.id)).toMatchObject({
			title: 'Los revisores piden más información',
			body: 'Los revisores piden más información: \u2068Link your project.\u2069 Motivación: «\u2068Say more.\u2069» Modifica tu solicitud en su página para responderles.'
		});
		expect(of(apps[1]!.id)).toMatchObject({
			title: 'يطلب المراجعون مزيدًا من المعلومات',
			body: 'يطلب المراجعون مزيدًا من المعلومات: \u2068Link your project.\u2069 الدافع: «\u2068Say more.\u2069» عدّل طلبك في صفحته للرد عليهم.'
		});
		expect(of(apps[2]!.id)).toMatchObject({
			title: 'The reviewers ask for more information',
			body: 'The reviewers ask for more information: \u2068Link your project.\u2069 Motivation: “\u2068Say more.\u2069” Change your application on its page to answer them.'
		});
		// The inbox shows the words as they were written.
		expect((await inboxOf(t.db, es.address)).map((n) => n.title)).toEqual(['Los revisores piden más información']);
	});

	// Last in the file: from here on the portal has two programmes.
	it("with several programmes, each title names the application's programme, in the recipient's language where translated", async () => {
		const [en, es] = [await addMember(t.db), await addMember(t.db)];
		await t.db.execute(sql`update members set locale = 'es' where address = ${es.address}`);
		const [builders] = rowsOf<{ program_id: number; id: number }>(
			await t.db.execute(
				sql`with p as (insert into programs (slug, name, translations) values ('builders', 'Builders', '{"es": {"name": "Constructores"}}') returning id)
				insert into rounds (program_id, name, opens_at) select id, 'Cohort 1', now() from p returning program_id, id`
			)
		);
		const inBuilders = await Promise.all([en, es].map((m) => seedApplication(t.db, m.address)));
		await t.db.execute(
			sql`update applications set program_id = ${builders!.program_id}, round_id = ${builders!.id} where id in (${sql.join(
				inBuilders.map((a) => sql`${a.id}::uuid`),
				sql`, `
			)})`
		);
		const inMembership = await seedApplication(t.db, (await addMember(t.db)).address);
		const ids = [...inBuilders, inMembership].map((a) => a.id);
		const outcome = await applyMoves(
			t.db,
			outbox,
			adminMember(),
			{
				applicationIds: ids,
				field: 'review',
				to: 'needs_info',
				reason: 'Link your project.',
				txHash: '',
				from: ''
			},
			{ txCheck: null }
		);
		expect(outcome.ok).toBe(true);
		const rows = await notificationsOf(ids);
		const titleOf = (id: string) => rows.find((r) => r.applicationId === id)!.title;
		const isolated = (name: string) => `\u2068${name}\u2069`;
		expect(titleOf(inBuilders[0]!.id)).toBe(`${isolated('Builders')}: The reviewers ask for more information`);
		expect(titleOf(inBuilders[1]!.id)).toBe(`${isolated('Constructores')}: Los revisores piden más información`);
		// The programme the portal began with is named too, once there is another.
		expect(titleOf(inMembership.id)).toMatch(/^\u2068.+\u2069: The reviewers ask for more information$/);
	});
	// submitApplication sends the new row's insert and the statement reading what its notification says in one
	// write (issue 60): the read runs after the insert on the transaction's connection, so it finds the row.
	it("a submission's own notification reads the row written with it: the community's template names the applicant and round", async () => {
		await t.db.insert(messageTemplates).values({
			event: 'application.submitted',
			locale: 'en',
			subject: 'Thank you, {name}',
			body: 'Your application to the round {round} is in.'
		});
		try {
			const member = await addMember(t.db);
			const result = await submitApplication(t.db, outbox, member, {
				displayName: 'Grace Hopper',
				motivation: 'I would like to help with the compiler.',
				contact: ''
			});
			if (!result.ok) throw new Error(result.message);
			const [told] = await notificationsOf([result.value.application.id]);
			expect(told).toMatchObject({ kind: 'application.submitted', title: 'Thank you, \u2068Grace Hopper\u2069' });
			expect(told!.body).toBe('Your application to the round \u2068Open\u2069 is in.');
		} finally {
			await t.db.delete(messageTemplates);
		}
	});
});
