// The server log of a failed query names the database's reason, never the parameters' values
// (issue #32: drizzle's message lists the parameters and hides why Postgres refused).
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faultForLog } from '../../src/lib/server/db/errors';
import { applications, members } from '../../src/lib/server/db/schema';
import { createTestDatabase, engines, type TestDatabase } from '../helpers/db';

const SECRET = 'personal text of an applicant';

async function failure(run: () => Promise<unknown>): Promise<unknown> {
	try {
		await run();
	} catch (err) {
		return err;
	}
	throw new Error('the query did not fail');
}

describe.each(engines)('the log of a failed query on %s', (engine) => {
	let t: TestDatabase;
	beforeAll(async () => {
		t = await createTestDatabase(engine);
	});
	afterAll(() => t?.drop());

	it('a NUL in a parameter: the SQL and the database reason with its SQLSTATE, not the value', async () => {
		const err = await failure(() =>
			t.db
				.select()
				.from(members)
				.where(sql`${members.address} ilike ${`%${SECRET}\u0000%`}`)
		);
		const log = faultForLog(err);
		expect(log).toMatch(/^Failed query: select .* from "members"/);
		expect(log).toMatch(/database: .+\(SQLSTATE 22021\)/);
		expect(log).not.toContain(SECRET);
		expect(log).toContain('parameters withheld');
	});

	it('a value the database quotes back in its reason is withheld too', async () => {
		const err = await failure(() =>
			t.db
				.select()
				.from(applications)
				.where(eq(sql`${applications.createdAt}`, sql`${SECRET}::timestamptz`))
		);
		const log = faultForLog(err);
		expect(log).toMatch(
			/database: invalid input syntax for type timestamp with time zone: \(value withheld\) \(SQLSTATE 22007\)/
		);
		expect(log).not.toContain(SECRET);
	});

	it('any other fault keeps its stack', () => {
		const log = faultForLog(new Error('boom'));
		expect(log).toMatch(/^Error: boom\n\s+at /);
	});
});
