import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applicationDetail } from '../../src/lib/server/applications/admin-detail';
import { submitApplication } from '../../src/lib/server/applications/submit';
import { transitionApplication } from '../../src/lib/server/applications/moves';
import { checkin } from '../../src/lib/server/checkins/checkins';
import { createTestDatabase, engines, type TestDatabase } from '../helpers/db';
import { OUTBOX_OFF } from '../helpers/outbox';
import { addMember, adminMember } from '../helpers/members';

describe.each(engines)('the page of one application on %s', (engine) => {
	let t: TestDatabase;
	beforeAll(async () => {
		t = await createTestDatabase(engine);
	});
	afterAll(() => t?.drop());

	const submit = async (member: Awaited<ReturnType<typeof addMember>>, displayName: string, motivation: string) => {
		const result = await submitApplication(t.db, OUTBOX_OFF, member, {
			displayName,
			motivation,
			contact: `@${displayName}`
		});
		if (!result.ok) throw new Error(result.message);
		return result.value.application;
	};
	const ask = (id: string) =>
		transitionApplication(t.db, OUTBOX_OFF, null, adminMember(), {
			applicationId: id,
			field: 'review',
			to: 'needs_info',
			reason: 'More?'
		});

	it('keeps every earlier version on resubmission, the member’s other applications, history and check-ins', async () => {
		const member = await addMember(t.db);
		const earlier = await submit(member, 'Grace', 'Old one');
		await transitionApplication(t.db, OUTBOX_OFF, null, adminMember(), {
			applicationId: earlier.id,
			field: 'review',
			to: 'rejected',
			reason: 'Not yet'
		});
		const app = await submit(member, 'Grace', 'First text');
		await ask(app.id);
		await submit(member, 'Grace H.', 'Second text');
		await ask(app.id);
		await submit(member, 'Grace Hopper', 'Third text');
		await checkin(t.db, OUTBOX_OFF, member, { note: 'hello' });

		const detail = (await applicationDetail(t.db, app.id))!;
		expect(detail.application).toMatchObject({
			displayName: 'Grace Hopper',
			motivation: 'Third text',
			review: 'pending'
		});
		expect(detail.revisions.map((r) => [r.displayName, r.motivation])).toEqual([
			['Grace', 'First text'],
			['Grace H.', 'Second text']
		]);
		const [first, second] = detail.revisions;
		expect(first!.submittedAt.getTime()).toBe(app.createdAt.getTime());
		expect(second!.submittedAt.getTime()).toBe(first!.replacedAt.getTime());
		expect(detail.events.map((e) => `${e.fromState}>${e.toState}`)).toEqual([
			'pending>needs_info',
			'needs_info>pending',
			'pending>needs_info',
			'needs_info>pending'
		]);
		expect(detail.others).toEqual([expect.objectContaining({ id: earlier.id, review: 'rejected' })]);
		expect(detail.checkIns.map((c) => c.note)).toEqual(['hello']);
		expect(await applicationDetail(t.db, '00000000-0000-4000-8000-000000000000')).toBeNull();
	});

	it('names the application waiting longest for review as the next one, never the one shown', async () => {
		await t.db.execute(sql`update applications set review = 'approved' where review = 'pending'`);
		const a = await submit(await addMember(t.db), 'Ann', 'a');
		const b = await submit(await addMember(t.db), 'Ben', 'b');
		expect((await applicationDetail(t.db, a.id))!.next).toEqual({ id: b.id, displayName: 'Ben' });
		expect((await applicationDetail(t.db, b.id))!.next).toEqual({ id: a.id, displayName: 'Ann' });
	});
});
