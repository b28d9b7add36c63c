// What the statement behind every notification reads (notifications/record.ts recipientsStatement), under
// EXPLAIN ANALYZE on 3,000 members and 3,000 applications: written `in (select jsonb_array_elements_text(...))`,
// the planner took the function for 100 rows and scanned every member and every application for each
// change told (a submission, a move); as `= any (array(...))` it reads the ones named, by their keys.
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../src/lib/server/db/rows';
import { recipientsStatement } from '../../src/lib/server/notifications/record';
import { createTestDatabase, serverUrl, type TestDatabase } from '../helpers/db';
import { nodes, type Plan } from '../helpers/plans';

describe.runIf(serverUrl)('the notifications’ recipients statement on Postgres', () => {
	let t: TestDatabase;
	let client: postgres.Sql;
	beforeAll(async () => {
		t = await createTestDatabase('postgres');
		client = postgres(t.url!, { max: 1, onnotice: () => {} });
		const address = `'0x' || left(encode(sha256(g::text::bytea), 'hex'), 40)`;
		await client.unsafe(
			`insert into members (address, locale) select ${address}, (array['en','es','ar'])[1 + g % 3] from generate_series(1, 3000) g`
		);
		await client.unsafe(`insert into applications (applicant_address, display_name, motivation)
			select ${address}, 'A' || g, 'Why' from generate_series(1, 3000) g`);
		await client.unsafe('vacuum analyze members, applications');
	}, 120_000);
	afterAll(async () => {
		await client?.end();
		await t?.drop();
	});

	it('reads the named member and application by key, not every row, and answers for them', async () => {
		const [picked] = await client.unsafe<{ id: string; address: string; locale: string }[]>(
			`select a.id, a.applicant_address as address, m.locale from applications a join members m on m.address = a.applicant_address
			order by a.created_at, a.id offset 1500 limit 1`
		);
		const statement = recipientsStatement([picked!.address], [picked!.id]);
		const [answer] = rowsOf<{ locales: Record<string, string>; apps: Record<string, unknown> }>(
			await t.db.execute(statement)
		);
		expect(answer!.locales).toEqual({ [picked!.address]: picked!.locale });
		expect(Object.keys(answer!.apps)).toEqual([picked!.id]);

		const [row] = rowsOf<{ 'QUERY PLAN': { Plan: Plan }[] }>(
			await t.db.execute(sql`explain (analyze, format json) ${statement}`)
		);
		const plan = row!['QUERY PLAN'][0]!.Plan;
		const read = (table: string) =>
			nodes(plan)
				.filter((n) => n['Relation Name'] === table)
				.reduce((sum, n) => sum + n['Actual Rows'] * n['Actual Loops'], 0);
		const scans = nodes(plan)
			.filter((n) => n['Node Type'] === 'Seq Scan')
			.map((n) => n['Relation Name']);
		expect(scans).not.toContain('members');
		expect(scans).not.toContain('applications');
		expect(read('members')).toBe(1);
		expect(read('applications')).toBe(1);
	});
});
