// The wait chart's median and 90th percentile come from ranks (drizzle/0012,
// docs/decisions/0034-insights-wait-ranks.md): counts per (week, wait bucket) kept by triggers, then one
// value read per wanted rank. They must be exactly the numbers percentile_cont gives over every wait,
// for any waits written by plain SQL (ties, one value a week, empty weeks, negative and fractional
// waits, changed and removed audit rows), and the statement must not read every wait of the window.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/lib/server/db/client';
import { rowsOf } from '../../src/lib/server/db/rows';
import { WEEKS, timeToFirstDecision, timeToFirstDecisionStatement } from '../../src/lib/server/insights/queries';
import { createTestDatabase, engines, serverUrl, type TestDatabase } from '../helpers/db';

const WEEK_SERIES = sql.raw(`select generate_series(
	date_trunc('week', now(), 'UTC') - interval '${(WEEKS - 1) * 168} hours',
	date_trunc('week', now(), 'UTC'), interval '168 hours') as week`);
const day = (column: string) => sql.raw(`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD')`);

/** percentile_cont over every row of insights_first_decisions, per week of the window. */
const OVER_FIRST_DECISIONS = sql`
	with weeks as (${WEEK_SERIES})
	select ${day('w.week')} as week,
		count(f.seconds)::int as "decided",
		percentile_cont(0.5) within group (order by f.seconds)::float8 as "medianSeconds",
		percentile_cont(0.9) within group (order by f.seconds)::float8 as "p90Seconds"
	from weeks w left join insights_first_decisions f on f.week = w.week
	group by w.week order by w.week`;

/** percentile_cont over the raw tables: each application's first review move out of pending. */
const OVER_RAW_ROWS = sql`
	with weeks as (${WEEK_SERIES}),
	decided as (
		select date_trunc('week', a.created_at, 'UTC') as week, extract(epoch from (
			select min(e.created_at) from application_events e
			where e.application_id = a.id and e.field = 'review' and e.to_state <> 'pending'
		) - a.created_at) as seconds
		from applications a
	)
	select ${day('w.week')} as week,
		count(d.seconds)::int as "decided",
		percentile_cont(0.5) within group (order by d.seconds)::float8 as "medianSeconds",
		percentile_cont(0.9) within group (order by d.seconds)::float8 as "p90Seconds"
	from weeks w left join decided d on d.week = w.week
	group by w.week order by w.week`;

type Percentiles = { week: string; decided: number; medianSeconds: number | null; p90Seconds: number | null };

async function direct(db: Database, query: typeof OVER_RAW_ROWS): Promise<Percentiles[]> {
	return rowsOf<Percentiles>(await db.execute(query)).map((row) => ({
		week: row.week,
		decided: Number(row.decided),
		medianSeconds: row.medianSeconds === null ? null : Number(row.medianSeconds),
		p90Seconds: row.p90Seconds === null ? null : Number(row.p90Seconds)
	}));
}

async function chart(db: Database): Promise<Percentiles[]> {
	return (await timeToFirstDecision(db)).map(({ week, decided, medianSeconds, p90Seconds }) => ({
		week,
		decided,
		medianSeconds,
		p90Seconds
	}));
}

/** The bucket counts, and what a GROUP BY over insights_first_decisions says they should be. */
async function buckets(db: Database) {
	const kept = await db.execute(sql`
		select week::text, bucket, decided, min_seconds::float8 as lo, max_seconds::float8 as hi
		from insights_wait_buckets order by week, bucket`);
	const counted = await db.execute(sql`
		select week::text, insights_wait_bucket(seconds) as bucket, count(*)::int as decided,
			min(seconds)::float8 as lo, max(seconds)::float8 as hi
		from insights_first_decisions group by 1, 2 order by 1, 2`);
	return { kept: rowsOf(kept), counted: rowsOf(counted) };
}

const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;

// Waits in seconds: a few shared values (ties), one cluster that falls in one or two buckets (so a rank
// is read inside a bucket, from either end), fractional and huge ones, and negative ones (an audit row
// dated before its application: never written by the portal, still counted as the raw rows say).
const wait = fc.oneof(
	{ weight: 3, arbitrary: fc.constantFrom(60, 60, 3600, 86_400, 0, 0.5) },
	{ weight: 4, arbitrary: fc.integer({ min: 86_400, max: 99_000 }) },
	{ weight: 2, arbitrary: fc.double({ min: 1, max: 5e7, noNaN: true, noDefaultInfinity: true }) },
	fc.double({ min: -5e5, max: 1, noNaN: true, noDefaultInfinity: true })
);
// Weeks back from this one: inside the 26-week window, mostly a few weeks so that they hold many waits,
// and outside it.
const weeksAgo = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(1, 2, 25) }, fc.integer({ min: 0, max: 30 }));

const step = fc.oneof(
	{
		weight: 4,
		arbitrary: fc.record({
			kind: fc.constant('decide' as const),
			rows: fc.array(fc.record({ weeksAgo, wait, decided: fc.boolean() }), { minLength: 1, maxLength: 25 })
		})
	},
	fc.record({ kind: fc.constant('earlier' as const), pick: fc.nat(), by: fc.integer({ min: 1, max: 200_000 }) }),
	fc.record({ kind: fc.constant('shift' as const), pick: fc.nat(), by: fc.integer({ min: -90_000, max: 90_000 }) }),
	fc.record({ kind: fc.constant('undo' as const), pick: fc.nat() }),
	fc.record({ kind: fc.constant('backdate' as const), pick: fc.nat(), hours: fc.integer({ min: -400, max: 400 }) }),
	fc.record({ kind: fc.constant('withdraw' as const), pick: fc.nat() })
);
type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

describe.each(engines)('the wait percentiles from ranks on %s', (engine) => {
	let t: TestDatabase;
	let applicants = 1_000;
	beforeAll(async () => {
		t = await createTestDatabase(engine);
	}, 60_000);
	afterAll(() => t?.drop());

	async function empty() {
		await t.db.execute(
			sql`truncate application_events, application_revisions, application_notes, applications cascade`
		);
	}

	/** One application per row, submitted `weeksAgo` weeks back; a decision after `wait` seconds if decided. */
	async function decide(rows: { weeksAgo: number; wait: number; decided: boolean }[]) {
		const input = rows.map((r, i) => ({
			weeks_ago: r.weeksAgo,
			wait: r.wait,
			decided: r.decided,
			address: addr(++applicants),
			minute: i
		}));
		const json = JSON.stringify(input);
		await t.db.execute(sql`insert into members (address)
			select address from jsonb_to_recordset(${json}::jsonb) as x(address text)`);
		await t.db.execute(sql`insert into applications (applicant_address, display_name, motivation, created_at)
			select address, 'Name', 'Motivation',
				date_trunc('week', now(), 'UTC') - weeks_ago * interval '168 hours' + minute * interval '1 minute'
			from jsonb_to_recordset(${json}::jsonb) as x(address text, weeks_ago int, minute int)`);
		// One statement for all the audit rows, as a bulk move writes them; an undecided one gets a
		// non-review row only.
		await t.db
			.execute(sql`insert into application_events (application_id, executor_address, field, from_state, to_state, created_at)
			select a.id, ${addr(0xad)}, (case when x.decided then 'review' else 'allowlist' end)::application_field,
				'pending', case when x.decided then 'approved' else 'added' end, a.created_at + x.wait * interval '1 second'
			from jsonb_to_recordset(${json}::jsonb) as x(address text, wait float8, decided boolean)
			join applications a on a.applicant_address = x.address`);
	}

	async function apply(s: Step) {
		const ids = rowsOf<{ id: string }>(
			await t.db.execute(sql`select id from applications order by created_at, id`)
		).map((r) => r.id);
		const one = 'pick' in s && ids.length ? ids[s.pick % ids.length]! : null;
		switch (s.kind) {
			case 'decide':
				return decide(s.rows);
			case 'earlier': // A second decision before the first: the first decision moves, maybe to another bucket.
				if (!one) return;
				await t.db
					.execute(sql`insert into application_events (application_id, executor_address, field, from_state, to_state, created_at)
					select id, ${addr(0xad)}, 'review', 'pending', 'rejected', created_at + ${s.by} * interval '1 second'
					from applications where id = ${one}`);
				return;
			case 'shift':
				if (!one) return;
				await t.db.execute(
					sql`update application_events set created_at = created_at + ${s.by} * interval '1 second' where application_id = ${one}`
				);
				return;
			case 'undo':
				if (!one) return;
				await t.db.execute(sql`delete from application_events where application_id = ${one}`);
				return;
			case 'backdate':
				if (!one) return;
				await t.db.execute(
					sql`update applications set created_at = created_at + ${s.hours} * interval '1 hour' where id = ${one}`
				);
				return;
			case 'withdraw':
				if (!one) return;
				await t.db.execute(sql`delete from application_events where application_id = ${one}`);
				await t.db.execute(sql`delete from applications where id = ${one}`);
				return;
		}
	}

	it('property: after any writes by plain SQL, the median and p90 equal percentile_cont over every wait', async () => {
		await fc.assert(
			fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 10 }), async (steps) => {
				await empty();
				for (const s of steps) await apply(s);
				const fromRanks = await chart(t.db);
				expect(fromRanks).toEqual(await direct(t.db, OVER_FIRST_DECISIONS));
				expect(fromRanks).toEqual(await direct(t.db, OVER_RAW_ROWS));
				const { kept, counted } = await buckets(t.db);
				expect(kept).toEqual(counted);
			}),
			{ numRuns: engine === 'pglite' ? 60 : 40 }
		);
	}, 300_000);

	it('ties, one value, and empty weeks give the numbers by hand', async () => {
		await empty();
		// Two weeks ago: five waits of one minute and one of an hour (median 60, p90 at rank 4.5: 60 + 0.5 × 3540).
		await decide([
			...Array.from({ length: 5 }, () => ({ weeksAgo: 2, wait: 60, decided: true })),
			{ weeksAgo: 2, wait: 3600, decided: true },
			// Three weeks ago: one decision of one day, one application still waiting.
			{ weeksAgo: 3, wait: 86_400, decided: true },
			{ weeksAgo: 3, wait: 10, decided: false }
		]);
		const rows = await timeToFirstDecision(t.db);
		expect(rows).toHaveLength(WEEKS);
		expect(rows[WEEKS - 3]).toMatchObject({ decided: 6, waiting: 0, medianSeconds: 60, p90Seconds: 1830 });
		expect(rows[WEEKS - 4]).toMatchObject({ decided: 1, waiting: 1, medianSeconds: 86_400, p90Seconds: 86_400 });
		for (const [i, row] of rows.entries())
			if (i !== WEEKS - 3 && i !== WEEKS - 4)
				expect(row).toMatchObject({ decided: 0, waiting: 0, medianSeconds: null, p90Seconds: null });
		expect(await chart(t.db)).toEqual(await direct(t.db, OVER_RAW_ROWS));
	});

	it('a bucket holds waits of one size: 4 buckets per doubling, in the order of the waits', async () => {
		const probe = [-5e5, -2, -1, -0.5, 0, 0.5, 1, 1.18, 1.19, 2, 60, 3600, 86_400, 86_400 * 1.19, 86_400 * 1.2, 1e9];
		const result = rowsOf<{ s: number; b: number }>(
			await t.db.execute(sql`select s::float8 as s, insights_wait_bucket(s) as b
				from unnest(${`{${probe.join(',')}}`}::float8[]) s order by s`)
		);
		const b = result.map((r) => Number(r.b));
		expect(b).toEqual([...b].sort((x, y) => x - y));
		expect(Object.fromEntries(result.map((r) => [Number(r.s), Number(r.b)]))).toMatchObject({
			0: 0,
			0.5: 0,
			1: 1,
			1.18: 1,
			1.19: 2,
			2: 5,
			[-0.5]: -1,
			[-1]: -2
		});
	});

	it('reads a few rows per wanted rank, not every wait of the window', async () => {
		await empty();
		// 2,000 decided applications in one week, their waits spread from minutes to weeks (log-uniform),
		// as real waits are: the old statement read all 2,000.
		const spread = Array.from({ length: 2_000 }, (_, i) => ({
			weeksAgo: 1,
			wait: Math.round(300 * Math.pow(2, ((i * 7919) % 2000) / 160)),
			decided: true
		}));
		await decide(spread);
		expect(await chart(t.db)).toEqual(await direct(t.db, OVER_RAW_ROWS));
		const plan = rowsOf<Record<string, unknown>>(
			await t.db.execute(sql`explain (analyze, format json) ${timeToFirstDecisionStatement()}`)
		);
		const cell = Object.values(plan[0]!)[0];
		const root = ((typeof cell === 'string' ? JSON.parse(cell) : cell) as { Plan: PlanNode }[])[0]!.Plan;
		const read = rowsReadFrom(root, 'insights_first_decisions');
		// At most the part of one bucket between a rank and its nearer end, for each of 4 ranks.
		expect(read).toBeLessThan(200);
		expect(read).toBeGreaterThan(0);
	});

	it("the migration's backfill rebuilds the counts from the first decisions already there", async () => {
		await empty();
		await decide([
			{ weeksAgo: 1, wait: 100, decided: true },
			{ weeksAgo: 1, wait: 105, decided: true },
			{ weeksAgo: 1, wait: 5000, decided: true },
			{ weeksAgo: 4, wait: 60, decided: true }
		]);
		const expected = await chart(t.db);
		const before = await buckets(t.db);
		expect(before.kept).toHaveLength(3);
		// The counts as the migration finds them: none, with decisions already in insights_first_decisions.
		await t.db.execute(sql`delete from insights_wait_buckets`);
		expect((await chart(t.db)).every((r) => r.medianSeconds === null)).toBe(true);
		const migration = readFileSync('drizzle/0012_insights_wait_ranks.sql', 'utf8');
		const backfill = migration.slice(migration.indexOf('-- Backfill')).split('--> statement-breakpoint');
		expect(backfill).toHaveLength(2);
		for (const statement of backfill) await t.db.execute(sql.raw(statement));
		expect(await chart(t.db)).toEqual(expected);
		expect((await buckets(t.db)).kept).toEqual(before.kept);
	});

	it.runIf(engine === 'postgres' && serverUrl)(
		'concurrent decisions and removals in one bucket keep its count, min and max',
		async () => {
			await empty();
			await decide(Array.from({ length: 30 }, (_, i) => ({ weeksAgo: 1, wait: 86_400 + i * 100, decided: true })));
			const ids = rowsOf<{ id: string }>(await t.db.execute(sql`select id from applications order by created_at`)).map(
				(r) => r.id
			);
			const fresh = Array.from({ length: 12 }, (_, i) => addr(0x9000 + i));
			await t.db.execute(
				sql`insert into members (address) values ${sql.join(
					fresh.map((m) => sql`(${m})`),
					sql`, `
				)}`
			);
			const hold = sql`select pg_sleep(0.05)`;
			// New decisions in the same bucket (one below and one above its current min and max), and
			// removals of its smallest and largest, each held open so that they overlap.
			const add = (address: string, seconds: number) =>
				t.db.transaction(async (tx) => {
					await tx.execute(sql`insert into applications (applicant_address, display_name, motivation, created_at)
						values (${address}, 'N', 'M', date_trunc('week', now(), 'UTC') - interval '168 hours')`);
					await tx.execute(sql`insert into application_events (application_id, executor_address, field, from_state, to_state, created_at)
						select id, ${addr(0xad)}, 'review', 'pending', 'approved', created_at + ${seconds} * interval '1 second'
						from applications where applicant_address = ${address}`);
					await tx.execute(hold);
				});
			const remove = (id: string) =>
				t.db.transaction(async (tx) => {
					await tx.execute(sql`delete from application_events where application_id = ${id}`);
					await tx.execute(hold);
				});
			await Promise.all([
				...fresh.map((address, i) => add(address, i % 2 ? 86_400 - 50 - i : 86_400 + 2_950 + i)),
				...ids.slice(0, 4).map(remove),
				...ids.slice(-4).map(remove)
			]);
			const { kept, counted } = await buckets(t.db);
			expect(kept).toEqual(counted);
			expect(await chart(t.db)).toEqual(await direct(t.db, OVER_RAW_ROWS));
		},
		60_000
	);
});

interface PlanNode {
	'Node Type': string;
	'Relation Name'?: string;
	'Actual Rows': number;
	'Actual Loops': number;
	Plans?: PlanNode[];
}

/** Rows that scans of `table` returned, over all their loops. */
function rowsReadFrom(node: PlanNode, table: string): number {
	const own = node['Relation Name'] === table ? node['Actual Rows'] * node['Actual Loops'] : 0;
	return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsReadFrom(child, table), 0);
}
