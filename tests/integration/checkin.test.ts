import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkIns } from '../../src/lib/server/db/schema';
import { checkin, checkInPage, RECENT_CHECKINS } from '../../src/lib/server/checkins/checkins';
import { createTestDatabase, engines, type TestDatabase } from '../helpers/db';
import { OUTBOX_OFF } from '../helpers/outbox';
import { addMember, countRows, randomAddress } from '../helpers/members';

describe.each(engines)('checkin on %s', (engine) => {
	let t: TestDatabase;
	beforeAll(async () => {
		t = await createTestDatabase(engine);
	});
	afterAll(() => t?.drop());

	it('records check-ins with and without a note; the recent list is newest first', async () => {
		const member = await addMember(t.db);
		expect(await checkin(t.db, OUTBOX_OFF, member, { note: '  Hello from the meetup  ' })).toMatchObject({
			ok: true,
			value: { note: 'Hello from the meetup' }
		});
		expect(await checkin(t.db, OUTBOX_OFF, member, {})).toMatchObject({ ok: true, value: { note: '' } });
		const { checkIns: recent } = await checkInPage(t.db, member.address);
		expect(recent.map((c) => c.note)).toEqual(['', 'Hello from the meetup']);
		expect(recent.every((c) => c.memberAddress === member.address)).toBe(true);
	});

	it("counts the member's own check-ins and the days in a row, by UTC day, and nobody else's", async () => {
		const member = await addMember(t.db);
		const other = await addMember(t.db);
		expect(await checkInPage(t.db, member.address)).toEqual({ checkIns: [], summary: { total: 0, streakDays: 0 } });
		const summary = async (address: string, at?: Date) => (await checkInPage(t.db, address, at)).summary;
		const at = (iso: string) => ({ memberAddress: member.address, note: '', createdAt: new Date(iso) });
		await t.db
			.insert(checkIns)
			.values([
				at('2026-11-22T00:30:00Z'),
				at('2026-11-21T23:59:00Z'),
				at('2026-11-21T08:00:00Z'),
				at('2026-11-20T12:00:00Z'),
				at('2026-11-18T12:00:00Z'),
				{ memberAddress: other.address, note: '', createdAt: new Date('2026-11-19T12:00:00Z') }
			]);
		const now = new Date('2026-11-22T10:00:00Z');
		expect(await summary(member.address, now)).toEqual({ total: 5, streakDays: 3 });
		// The streak holds through the next day until it ends, and is gone the day after.
		expect(await summary(member.address, new Date('2026-11-23T22:00:00Z'))).toMatchObject({
			streakDays: 3
		});
		expect(await summary(member.address, new Date('2026-11-24T00:01:00Z'))).toMatchObject({
			streakDays: 0
		});
		expect(await summary(member.address.toUpperCase().replace('0X', '0x'), now)).toMatchObject({
			total: 5
		});
	});

	it('the page shows the latest 20; the count and the streak count them all', async () => {
		const member = await addMember(t.db);
		const now = new Date('2026-11-30T10:00:00Z');
		// One a day for 25 days up to today, and a second one today.
		const days = Array.from({ length: 25 }, (_, i) => new Date(now.getTime() - i * 86_400_000));
		await t.db.insert(checkIns).values(
			[...days, new Date(now.getTime() + 60_000)].map((createdAt, i) => ({
				memberAddress: member.address,
				note: `#${i}`,
				createdAt
			}))
		);
		const page = await checkInPage(t.db, member.address, now);
		expect(page.checkIns).toHaveLength(RECENT_CHECKINS);
		expect(page.checkIns.map((c) => c.note).slice(0, 3)).toEqual(['#25', '#0', '#1']);
		expect(page.checkIns.every((c) => c.createdAt instanceof Date && c.memberAddress === member.address)).toBe(true);
		expect(page.summary).toEqual({ total: 26, streakDays: 25 });
	});

	it('the 21st check-in in 24 hours answers 429, says when to try again, and is not written', async () => {
		const member = await addMember(t.db);
		for (let i = 0; i < 20; i++)
			expect(await checkin(t.db, OUTBOX_OFF, member, { note: `#${i}` })).toMatchObject({ ok: true });
		const result = await checkin(t.db, OUTBOX_OFF, member, { note: 'one too many' });
		expect(result).toMatchObject({ ok: false, status: 429 });
		expect(result.ok === false && result.message).toMatch(/limit of 20 check-ins in 24 hours.*try again in/);
		const { checkIns: recent, summary } = await checkInPage(t.db, member.address);
		expect(summary.total).toBe(20);
		expect(recent.map((c) => c.note)).not.toContain('one too many');
	});

	it.each([
		['too long', 'x'.repeat(281), /at most 280/],
		['a control character', 'bell\u0007', /control characters/],
		['two values', ['a', 'b'], /must be text/],
		['a file', new File(['x'], 'n.txt'), /must be text/]
	])('refuses a note that is %s (400, message for the note) and writes nothing', async (_, note, message) => {
		const member = await addMember(t.db);
		const before = await countRows(t.db, 'check_ins');
		const result = await checkin(t.db, OUTBOX_OFF, member, { note });
		expect(result).toMatchObject({ ok: false, status: 400 });
		expect(result.ok === false && result.status === 400 && result.errors.note).toMatch(message);
		expect(await countRows(t.db, 'check_ins')).toBe(before);
	});

	it('accepts a 280-character note with line breaks', async () => {
		const member = await addMember(t.db);
		expect(await checkin(t.db, OUTBOX_OFF, member, { note: 'a\n'.repeat(140).trimEnd() + 'b' })).toMatchObject({
			ok: true
		});
	});

	it('answers with the row it wrote: its id, the note as stored and the database time', async () => {
		const member = await addMember(t.db);
		const before = Date.now();
		const result = await checkin(t.db, OUTBOX_OFF, member, { note: ' stored ' });
		if (!result.ok) throw new Error(result.message);
		const {
			checkIns: [stored]
		} = await checkInPage(t.db, member.address);
		expect(result.value).toEqual(stored);
		expect(result.value).toMatchObject({ memberAddress: member.address, note: 'stored' });
		expect(Math.abs(result.value.createdAt.getTime() - before)).toBeLessThan(60_000);
	});

	it('counts a refused note toward the limit, and answers 429 over it whatever the note (limit, then validate)', async () => {
		const member = await addMember(t.db);
		for (let i = 0; i < 19; i++)
			expect(await checkin(t.db, OUTBOX_OFF, member, { note: 'x'.repeat(281) })).toMatchObject({ status: 400 });
		expect(await checkin(t.db, OUTBOX_OFF, member, { note: 'the twentieth' })).toMatchObject({ ok: true });
		expect(await checkin(t.db, OUTBOX_OFF, member, { note: 'x'.repeat(281) })).toMatchObject({
			ok: false,
			status: 429
		});
		expect(await checkin(t.db, OUTBOX_OFF, member, { note: 'fine' })).toMatchObject({ ok: false, status: 429 });
		expect((await checkInPage(t.db, member.address)).checkIns.map((c) => c.note)).toEqual(['the twentieth']);
	});

	it('a session whose member row is gone answers 401 and writes nothing', async () => {
		const before = await countRows(t.db, 'check_ins');
		expect(await checkin(t.db, OUTBOX_OFF, { address: randomAddress(), isAdmin: false }, { note: 'hi' })).toMatchObject(
			{
				ok: false,
				status: 401
			}
		);
		expect(await countRows(t.db, 'check_ins')).toBe(before);
	});
});
