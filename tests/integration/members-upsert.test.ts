// The sign-in's member upsert is built once per database and run with each address as a parameter
// (src/lib/server/auth/members.ts): every address gets its own row, and a returning member keeps
// the row and its created_at while last_signed_in_at moves on.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertMember } from '../../src/lib/server/auth/members';
import { rowsOf } from '../../src/lib/server/db/rows';
import { createTestDatabase, engines, type TestDatabase } from '../helpers/db';
import { randomAddress } from '../helpers/members';

describe.each(engines)('the member upsert on %s', (engine) => {
	let t: TestDatabase;
	beforeAll(async () => {
		t = await createTestDatabase(engine);
	});
	afterAll(() => t?.drop());

	const rows = async () =>
		rowsOf<{ address: string; created_at: string; last_signed_in_at: string }>(
			await t.db.execute(
				sql`select address, created_at::text, last_signed_in_at::text from members order by created_at, address`
			)
		);

	it('writes each address it is given, and only updates the sign-in time of one it has seen', async () => {
		const [a, b] = [randomAddress(), randomAddress()];
		await upsertMember(t.db, a);
		await upsertMember(t.db, b.toUpperCase().replace('0X', '0x'));
		const first = await rows();
		expect(first.map((r) => r.address).sort()).toEqual([a, b].sort());

		await new Promise((resolve) => setTimeout(resolve, 20));
		await upsertMember(t.db, a);
		const second = await rows();
		expect(second.map((r) => r.address).sort()).toEqual([a, b].sort());
		const before = first.find((r) => r.address === a);
		const after = second.find((r) => r.address === a);
		expect(after?.created_at).toBe(before?.created_at);
		expect(after?.last_signed_in_at).not.toBe(before?.last_signed_in_at);
		expect(second.find((r) => r.address === b)).toEqual(first.find((r) => r.address === b));
	});
});
