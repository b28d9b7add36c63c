import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkin, recentCheckIns } from '../../src/lib/server/checkins';
import { createTestDatabase, engines, type TestDatabase } from '../helpers/db';
import { addMember, countRows, randomAddress } from '../helpers/members';

describe.each(engines)('checkin on %s', (engine) => {
	let t: TestDatabase;
	beforeAll(async () => {
		t = await createTestDatabase(engine);
	});
	afterAll(() => t?.drop());

	it('records check-ins with and without a note; the recent list is newest first', async () => {
		const member = await addMember(t.db);
		expect(await checkin(t.db, member, { note: '  Hello from the meetup  ' })).toMatchObject({
			ok: true,
			value: { note: 'Hello from the meetup' }
		});
		expect(await checkin(t.db, member, {})).toMatchObject({ ok: true, value: { note: '' } });
		const recent = await recentCheckIns(t.db, member.address);
		expect(recent.map((c) => c.note)).toEqual(['', 'Hello from the meetup']);
		expect(recent.every((c) => c.memberAddress === member.address)).toBe(true);
	});

	it('the 21st check-in in 24 hours answers 429, says when to try again, and is not written', async () => {
		const member = await addMember(t.db);
		for (let i = 0; i < 20; i++) expect(await checkin(t.db, member, { note: `#${i}` })).toMatchObject({ ok: true });
		const result = await checkin(t.db, member, { note: 'one too many' });
		expect(result).toMatchObject({ ok: false, status: 429 });
		expect(result.ok === false && result.message).toMatch(/limit of 20 check-ins in 24 hours.*try again in/);
		const recent = await recentCheckIns(t.db, member.address, 100);
		expect(recent).toHaveLength(20);
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
		const result = await checkin(t.db, member, { note });
		expect(result).toMatchObject({ ok: false, status: 400 });
		expect(result.ok === false && result.status === 400 && result.errors.note).toMatch(message);
		expect(await countRows(t.db, 'check_ins')).toBe(before);
	});

	it('accepts a 280-character note with line breaks', async () => {
		const member = await addMember(t.db);
		expect(await checkin(t.db, member, { note: 'a\n'.repeat(140).trimEnd() + 'b' })).toMatchObject({ ok: true });
	});

	it('a session whose member row is gone answers 401 and writes nothing', async () => {
		const before = await countRows(t.db, 'check_ins');
		expect(await checkin(t.db, { address: randomAddress(), isAdmin: false }, { note: 'hi' })).toMatchObject({
			ok: false,
			status: 401
		});
		expect(await countRows(t.db, 'check_ins')).toBe(before);
	});
});
