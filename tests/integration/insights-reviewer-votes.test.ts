// The votes chart of /admin/insights reads the per-reviewer rollup of drizzle/0017: after votes, re-votes
// (also several in one statement, and backdated ones that do not become current), changes and deletions
// by hand and a TRUNCATE, it equals the same aggregate over every vote; its backfill does too.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/lib/server/db/client';
import { rowsOf } from '../../src/lib/server/db/rows';
import { votesPerReviewer } from '../../src/lib/server/insights/queries';
import { createTestDatabase, engines, serverUrl, type TestDatabase } from '../helpers/db';
import { addMember, seedApplication } from '../helpers/members';

const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const REVIEWERS = [11, 12, 13].map(addr);
const CHOICES = ['approve', 'reject', 'abstain'] as const;

/** The chart as it was computed before the rollup: each reviewer's newest vote per application, counted. */
async function fromEveryVote(db: Database) {
	const rows = rowsOf(
		await db.execute(sql`
		select reviewer_address as "reviewer",
			count(*) filter (where vote = 'approve')::int as "approve",
			count(*) filter (where vote = 'reject')::int as "reject",
			count(*) filter (where vote = 'abstain')::int as "abstain"
		from (
			select distinct on (application_id, reviewer_address) reviewer_address, vote
			from application_votes order by application_id, reviewer_address, created_at desc, id desc
		) current
		group by reviewer_address order by count(*) desc, reviewer_address limit 30`)
	);
	return rows.length ? rows : null;
}

const vote = fc.record({
	app: fc.nat({ max: 3 }),
	reviewer: fc.nat({ max: 2 }),
	choice: fc.constantFrom(...CHOICES),
	// Hours back: a re-vote may be older than the current vote, and then does not replace it.
	ago: fc.integer({ min: 0, max: 5 })
});
const step = fc.oneof(
	{
		weight: 4,
		arbitrary: fc.record({ kind: fc.constant('votes' as const), rows: fc.array(vote, { minLength: 1, maxLength: 4 }) })
	},
	fc.record({
		kind: fc.constant('change' as const),
		reviewer: fc.nat({ max: 2 }),
		choice: fc.constantFrom(...CHOICES)
	}),
	fc.record({ kind: fc.constant('backdate' as const), app: fc.nat({ max: 3 }), by: fc.integer({ min: -3, max: 3 }) }),
	fc.record({ kind: fc.constant('drop' as const), app: fc.nat({ max: 3 }), reviewer: fc.nat({ max: 2 }) })
);
type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

describe.each(engines)('the per-reviewer votes rollup on %s', (engine) => {
	let t: TestDatabase;
	const apps: string[] = [];
	beforeAll(async () => {
		t = await createTestDatabase(engine);
		for (let i = 0; i < 4; i++) {
			const member = await addMember(t.db, addr(100 + i));
			apps.push((await seedApplication(t.db, member.address)).id);
		}
	}, 60_000);
	afterAll(() => t?.drop());

	async function apply(s: Step) {
		switch (s.kind) {
			case 'votes':
				await t.db.execute(sql`insert into application_votes (application_id, reviewer_address, vote, created_at)
					values ${sql.join(
						s.rows.map(
							(r) =>
								sql`(${apps[r.app]}::uuid, ${REVIEWERS[r.reviewer]}, ${r.choice}, now() - ${sql.raw(`interval '${r.ago} hours'`)})`
						),
						sql`, `
					)}`);
				return;
			case 'change':
				await t.db.execute(
					sql`update application_votes set vote = ${s.choice} where id = (select max(id) from application_votes where reviewer_address = ${REVIEWERS[s.reviewer]})`
				);
				return;
			case 'backdate':
				await t.db.execute(
					sql`update application_votes set created_at = created_at + ${sql.raw(`interval '${s.by} hours'`)} where application_id = ${apps[s.app]}`
				);
				return;
			case 'drop':
				await t.db.execute(
					sql`delete from application_votes where application_id = ${apps[s.app]} and reviewer_address = ${REVIEWERS[s.reviewer]}`
				);
				return;
		}
	}

	it('property: after any votes, changes and deletions, the chart equals its aggregate over every vote', async () => {
		let run = 0;
		await fc.assert(
			fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 10 }), async (steps) => {
				// Every other run starts empty by TRUNCATE (its trigger empties the rollup), the others by DELETE.
				if (run++ % 2) await t.db.execute(sql`truncate application_votes`);
				else await t.db.execute(sql`delete from application_votes`);
				for (const s of steps) await apply(s);
				expect(await votesPerReviewer(t.db)).toEqual(await fromEveryVote(t.db));
			}),
			{ numRuns: engine === 'pglite' ? 40 : 25 }
		);
	}, 240_000);

	it('a portal with votes before the migration: its backfill gives the same chart as every vote', async () => {
		await t.db.execute(sql`delete from application_votes`);
		await apply({
			kind: 'votes',
			rows: [
				{ app: 0, reviewer: 0, choice: 'approve', ago: 2 },
				{ app: 0, reviewer: 0, choice: 'reject', ago: 1 },
				{ app: 1, reviewer: 0, choice: 'abstain', ago: 1 },
				{ app: 1, reviewer: 1, choice: 'approve', ago: 3 }
			]
		});
		const expected = await fromEveryVote(t.db);
		expect(expected).toEqual([
			{ reviewer: REVIEWERS[0], approve: 0, reject: 1, abstain: 1 },
			{ reviewer: REVIEWERS[1], approve: 1, reject: 0, abstain: 0 }
		]);
		await t.db.execute(sql`delete from insights_reviewer_votes`);
		expect(await votesPerReviewer(t.db)).toBeNull();
		const migration = readFileSync('drizzle/0017_insights_reviewer_votes.sql', 'utf8');
		await t.db.execute(sql.raw(migration.slice(migration.indexOf('-- Backfill'))));
		expect(await votesPerReviewer(t.db)).toEqual(expected);
	}, 60_000);

	it.runIf(engine === 'postgres' && serverUrl)(
		'votes at the same moment on one application, one reviewer several times among them, count each current vote once',
		async () => {
			await t.db.execute(sql`delete from application_votes`);
			// Each transaction stays open after its insert so that the others' inserts and triggers overlap it.
			const voters = [0, 1, 2, 0, 1, 0, 2, 0];
			await Promise.all(
				voters.map((r, i) =>
					t.db.transaction(async (tx) => {
						await tx.execute(sql`insert into application_votes (application_id, reviewer_address, vote)
							values (${apps[0]}, ${REVIEWERS[r]}, ${CHOICES[i % 3]})`);
						await tx.execute(sql`select pg_sleep(0.05)`);
					})
				)
			);
			const chart = await votesPerReviewer(t.db);
			expect(chart).toEqual(await fromEveryVote(t.db));
			expect(chart?.map((r) => r.approve + r.reject + r.abstain)).toEqual([1, 1, 1]);
		},
		60_000
	);
});
