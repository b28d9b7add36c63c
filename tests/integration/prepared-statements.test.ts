// The hot paths' statements are prepared on a Postgres server (docs/decisions/0031-prepared-statements-and-the-hot-path.md):
// after a sign-in's upsert, a limit, a check-in, a review page, a single transition and /apply's reads, the one
// connection of a pool of one holds each of them in pg_prepared_statements, and running them again
// gives the same answers as the first time (a prepared statement is bound to new values, not reused stale).
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertMember } from '../../src/lib/server/auth/members';
import { transitionApplication } from '../../src/lib/server/applications/moves';
import { parseTableQuery, reviewTable } from '../../src/lib/server/applications/review-table';
import { checkin } from '../../src/lib/server/checkins/checkins';
import { memberRecord } from '../../src/lib/server/applications/record';
import { programStandings } from '../../src/lib/server/programs/rounds';
import { rowsOf } from '../../src/lib/server/db/rows';
import { consume } from '../../src/lib/server/platform/rate-limit';
import { createTestDatabase, serverUrl, type TestDatabase } from '../helpers/db';
import { OUTBOX_OFF } from '../helpers/outbox';
import { addMember, adminMember, randomAddress, seedApplication } from '../helpers/members';

describe.runIf(serverUrl)('prepared statements on the Postgres server', () => {
	let t: TestDatabase;
	beforeAll(async () => {
		// One connection, so that every statement below is prepared on the session read afterwards.
		t = await createTestDatabase('postgres', { max: 1 });
	});
	afterAll(() => t?.drop());

	const prepared = async () =>
		rowsOf<{ statement: string }>(await t.db.execute(sql`select statement from pg_prepared_statements`)).map(
			(r) => r.statement
		);

	it('keeps the hot statements on the connection and answers each later call with its own values', async () => {
		const address = randomAddress();
		await upsertMember(t.db, address);
		await upsertMember(t.db, address);
		const first = await consume(t.db, address, 'checkin');
		const second = await consume(t.db, address, 'checkin');
		expect([first, second].map((r) => (r.ok ? r.value.used : r.used))).toEqual([1, 2]);

		const member = { address, isAdmin: false };
		const notes = [];
		for (const note of ['first', 'second']) {
			const outcome = await checkin(t.db, OUTBOX_OFF, member, { note });
			expect(outcome.ok).toBe(true);
			if (outcome.ok) notes.push(outcome.value.note);
		}
		expect(notes).toEqual(['first', 'second']);

		const applicant = await addMember(t.db);
		const [a, b] = [
			await seedApplication(t.db, applicant.address),
			await seedApplication(t.db, (await addMember(t.db)).address)
		];
		const admin = adminMember();
		for (const id of [a.id, b.id]) {
			const moved = await transitionApplication(t.db, OUTBOX_OFF, null, admin, {
				applicationId: id,
				field: 'review',
				to: 'approved',
				reason: '',
				txHash: '',
				from: 'pending'
			});
			expect(moved.ok && [moved.value.application.id, moved.value.application.review]).toEqual([id, 'approved']);
		}

		const pages = [
			await reviewTable(t.db, parseTableQuery(new URLSearchParams())),
			await reviewTable(t.db, parseTableQuery(new URLSearchParams('review=approved')))
		];
		expect(pages[0]!.counts).toMatchObject({ all: 2, approved: 2, pending: 0 });
		expect(pages[1]!.rows.map((r) => r.id).sort()).toEqual([a.id, b.id].sort());

		// /apply's reads (issue 60), twice: the second answers with its own values.
		for (const who of [applicant.address, address]) {
			const [standings, record] = await Promise.all([programStandings(t.db), memberRecord(t.db, who)]);
			expect(standings.map((s) => s.program.slug)).toContain('membership');
			expect(record.applications.map((r) => r.id)).toEqual(who === applicant.address ? [a.id] : []);
		}

		const statements = await prepared();
		for (const fragment of [
			'insert into "members"',
			'from consume_rate_limit(',
			'insert into "check_ins"',
			'from "applications" where "applications"."id" in ($1) for no key update',
			'update "applications" set "review"',
			'array(select r.reviewer_address from review_assignments as r',
			'from (select 1) as one',
			'from "programs" left join "rounds"',
			'where "applications"."applicant_address" = $1',
			'from "application_drafts" where "application_drafts"."member_address" = $1'
		]) {
			expect(
				statements.some((s) => s.includes(fragment)),
				fragment
			).toBe(true);
		}
	});
});
