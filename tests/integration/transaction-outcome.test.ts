import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../../src/lib/platform/result';
import { rowsOf } from '../../src/lib/server/db/rows';
import { transactionOutcome } from '../../src/lib/server/platform/transaction';
import { createTestDatabase, engines, type TestDatabase } from '../helpers/db';

describe.each(engines)('a refusal decided inside a transaction leaves nothing written, on %s', (engine) => {
	let t: TestDatabase;
	const counter = (subject: string) =>
		sql`insert into rate_limit_counters (subject, action, window_started_at, window_ends_at, count) values (${subject}, 'transaction-outcome', now(), now() + interval '1 hour', 1)`;
	const written = async (subject: string) =>
		rowsOf(await t.db.execute(sql`select 1 from rate_limit_counters where subject = ${subject}`)).length;

	beforeAll(async () => {
		t = await createTestDatabase(engine);
	});
	afterAll(() => t?.drop());

	it('commits what an ok answer wrote and returns it', async () => {
		const answer = await transactionOutcome(t.db, async (tx) => {
			await tx.execute(counter('committed'));
			return ok(7);
		});
		expect(answer).toEqual({ ok: true, value: 7 });
		expect(await written('committed')).toBe(1);
	});

	it('rolls back what a failure wrote and returns the failure as it was', async () => {
		const refusal = { ok: false as const, code: 'rate_limited', message: 'Over the limit.', used: 3 };
		const answer = await transactionOutcome(t.db, async (tx) => {
			await tx.execute(counter('rolled-back'));
			return refusal;
		});
		expect(answer).toBe(refusal);
		expect(await written('rolled-back')).toBe(0);
	});

	it('rethrows an error as it is, with nothing written', async () => {
		const fault = new Error('fault');
		await expect(
			transactionOutcome(t.db, async (tx) => {
				await tx.execute(counter('thrown'));
				throw fault;
			})
		).rejects.toBe(fault);
		expect(await written('thrown')).toBe(0);
	});
});
