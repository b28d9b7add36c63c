// The insights charts read the rollup tables of drizzle/0010; whatever statements write the raw rows
// (many rows at once, moves, backdated rows, deletions, truncation, concurrent check-ins of one member),
// each chart must show exactly what the same aggregate over the raw tables says.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { sql, type SQL } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/lib/server/db/client';
import { rowsOf } from '../../src/lib/server/db/rows';
import {
	DAYS,
	WEEKS,
	applicationsPerWeek,
	checkInsPerDay,
	funnel,
	timeToFirstDecision
} from '../../src/lib/server/insights/queries';
import { createTestDatabase, engines, serverUrl, type TestDatabase } from '../helpers/db';

const hours = (n: number) => sql.raw(`interval '${n} hours'`);
const WEEK_SERIES = sql.raw(`select generate_series(
	date_trunc('week', now(), 'UTC') - interval '${(WEEKS - 1) * 168} hours',
	date_trunc('week', now(), 'UTC'), interval '168 hours') as week`);
const day = (column: string) => sql.raw(`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD')`);

/** What the raw tables say: each chart's aggregate over applications, application_events and check_ins. */
const RAW = {
	applicationsPerWeek: sql`
		with weeks as (${WEEK_SERIES})
		select ${day('w.week')} as week,
			count(a.id) filter (where a.review = 'pending')::int as "pending",
			count(a.id) filter (where a.review = 'needs_info')::int as "needsInfo",
			count(a.id) filter (where a.review = 'approved')::int as "approved",
			count(a.id) filter (where a.review = 'rejected')::int as "rejected",
			count(a.id) filter (where a.review = 'withdrawn')::int as "withdrawn"
		from weeks w
		left join applications a on a.created_at >= w.week and a.created_at < w.week + interval '168 hours'
		group by w.week order by w.week`,
	funnel: sql`
		select count(*)::int as "submitted",
			count(*) filter (where review = 'approved')::int as "approved",
			count(*) filter (where allowlist = 'added')::int as "allowlisted",
			count(*) filter (where distribution = 'sent')::int as "sent"
		from applications`,
	timeToFirstDecision: sql`
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
			(count(d.week) - count(d.seconds))::int as "waiting",
			percentile_cont(0.5) within group (order by d.seconds)::float8 as "medianSeconds",
			percentile_cont(0.9) within group (order by d.seconds)::float8 as "p90Seconds"
		from weeks w left join decided d on d.week = w.week
		group by w.week order by w.week`,
	checkInsPerDay: sql`
		with days as (select generate_series(
			date_trunc('day', now(), 'UTC') - interval '${sql.raw(String((DAYS - 1) * 24))} hours',
			date_trunc('day', now(), 'UTC'), interval '24 hours') as day)
		select ${day('d.day')} as day,
			count(c.id)::int as "checkIns",
			count(distinct c.member_address)::int as "members"
		from days d left join check_ins c on c.created_at >= d.day and c.created_at < d.day + interval '24 hours'
		group by d.day order by d.day`
};

async function raw(db: Database, query: SQL) {
	return rowsOf<Record<string, unknown>>(await db.execute(query)).map((row) => {
		const out: Record<string, unknown> = { ...row };
		for (const key of ['medianSeconds', 'p90Seconds'])
			if (key in out) out[key] = out[key] === null ? null : Number(out[key]);
		return out;
	});
}

/** Every chart from the rollup beside the same chart from the raw rows. */
async function charts(db: Database) {
	return {
		rollup: {
			applicationsPerWeek: await applicationsPerWeek(db),
			funnel: await funnel(db),
			timeToFirstDecision: await timeToFirstDecision(db),
			checkInsPerDay: await checkInsPerDay(db)
		},
		raw: {
			applicationsPerWeek: await raw(db, RAW.applicationsPerWeek),
			funnel: (await raw(db, RAW.funnel))[0],
			timeToFirstDecision: await raw(db, RAW.timeToFirstDecision),
			checkInsPerDay: await raw(db, RAW.checkInsPerDay)
		}
	};
}

const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const MEMBERS = [1, 2, 3, 4].map(addr);
const REVIEW = ['pending', 'needs_info', 'approved', 'rejected', 'withdrawn'] as const;
const ALLOWLIST = ['pending', 'added', 'failed'] as const;
const DISTRIBUTION = ['pending', 'sent', 'failed'] as const;

const states = fc.record({
	review: fc.constantFrom(...REVIEW),
	allowlist: fc.constantFrom(...ALLOWLIST),
	distribution: fc.constantFrom(...DISTRIBUTION)
});
// Hours back from now: inside and outside the 26-week and 90-day windows, near their edges too.
const ago = fc.oneof(fc.integer({ min: 0, max: 400 }), fc.integer({ min: 2100, max: 4500 }));
// Few applications, so that later steps often meet the same one again.
const pick = fc.nat({ max: 5 });
// Mostly the last two days, so that one member's check-ins often share a day.
const checkInAgo = fc.oneof(
	{ weight: 3, arbitrary: fc.integer({ min: 0, max: 48 }) },
	fc.integer({ min: 0, max: 2300 })
);

const step = fc.oneof(
	{
		weight: 3,
		arbitrary: fc.record({
			kind: fc.constant('apply' as const),
			rows: fc.array(fc.tuple(ago, states), { minLength: 1, maxLength: 4 })
		})
	},
	fc.record({ kind: fc.constant('move' as const), app: pick, to: states }),
	fc.record({ kind: fc.constant('bulkMove' as const), olderThan: ago, review: fc.constantFrom(...REVIEW) }),
	fc.record({ kind: fc.constant('backdate' as const), app: pick, by: fc.integer({ min: -300, max: 300 }) }),
	{
		weight: 4,
		arbitrary: fc.record({
			kind: fc.constant('event' as const),
			rows: fc.array(
				fc.record({
					app: pick,
					field: fc.constantFrom('review', 'review', 'allowlist'),
					to: fc.constantFrom('pending', 'needs_info', 'approved', 'rejected'),
					after: fc.integer({ min: -5, max: 900 })
				}),
				{ minLength: 1, maxLength: 4 }
			)
		})
	},
	fc.record({ kind: fc.constant('dropEvents' as const), app: pick }),
	fc.record({ kind: fc.constant('shiftEvents' as const), app: pick, by: fc.integer({ min: -200, max: 200 }) }),
	fc.record({ kind: fc.constant('dropApplication' as const), app: pick }),
	{
		weight: 3,
		arbitrary: fc.record({
			kind: fc.constant('checkIn' as const),
			rows: fc.array(fc.tuple(fc.nat({ max: 3 }), checkInAgo), { minLength: 1, maxLength: 6 })
		})
	},
	fc.record({
		kind: fc.constant('dropCheckIns' as const),
		member: fc.nat({ max: 3 }),
		from: fc.integer({ min: 0, max: 2300 })
	}),
	fc.record({
		kind: fc.constant('moveCheckIns' as const),
		member: fc.nat({ max: 3 }),
		by: fc.integer({ min: -48, max: 48 })
	})
);
type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

describe.each(engines)('the insights rollup on %s', (engine) => {
	let t: TestDatabase;
	let applicants = 100;
	beforeAll(async () => {
		t = await createTestDatabase(engine);
		await t.db.execute(
			sql`insert into members (address) values ${sql.join(
				MEMBERS.map((m) => sql`(${m})`),
				sql`, `
			)}`
		);
	}, 60_000);
	afterAll(() => t?.drop());

	const ids = async () =>
		rowsOf<{ id: string }>(await t.db.execute(sql`select id from applications order by created_at, id`)).map(
			(r) => r.id
		);

	async function apply(step: Step, db: Database) {
		const existing = await ids();
		const app = (n: number) => existing[n % existing.length]!;
		switch (step.kind) {
			case 'apply': {
				const rows = step.rows.map(([h, s]) => ({ address: addr(++applicants), h, ...s }));
				await db.execute(
					sql`insert into members (address) values ${sql.join(
						rows.map((r) => sql`(${r.address})`),
						sql`, `
					)}`
				);
				await db.execute(sql`insert into applications (applicant_address, display_name, motivation, review, allowlist, distribution, created_at)
					values ${sql.join(
						rows.map(
							(r) =>
								sql`(${r.address}, 'Name', 'Motivation', ${r.review}::review_state, ${r.allowlist}::allowlist_state, ${r.distribution}::distribution_state, now() - ${hours(r.h)})`
						),
						sql`, `
					)}`);
				return;
			}
			case 'move':
				if (!existing.length) return;
				await db.execute(
					sql`update applications set review = ${step.to.review}::review_state, allowlist = ${step.to.allowlist}::allowlist_state, distribution = ${step.to.distribution}::distribution_state where id = ${app(step.app)}`
				);
				return;
			case 'bulkMove':
				await db.execute(
					sql`update applications set review = ${step.review}::review_state where created_at < now() - ${hours(step.olderThan)}`
				);
				return;
			case 'backdate':
				if (!existing.length) return;
				await db.execute(
					sql`update applications set created_at = created_at + ${hours(step.by)} where id = ${app(step.app)}`
				);
				return;
			case 'event':
				if (!existing.length) return;
				await db.execute(sql`insert into application_events (application_id, executor_address, field, from_state, to_state, created_at)
					select a.id, ${MEMBERS[0]}, e.field::application_field, 'pending', e.to_state, a.created_at + e.after * interval '1 hour'
					from (values ${sql.join(
						step.rows.map((r) => sql`(${app(r.app)}::uuid, ${r.field}, ${r.to}, ${r.after}::int)`),
						sql`, `
					)}) e(id, field, to_state, after)
					join applications a on a.id = e.id`);
				return;
			case 'dropEvents':
				if (!existing.length) return;
				await db.execute(sql`delete from application_events where application_id = ${app(step.app)}`);
				return;
			case 'shiftEvents':
				if (!existing.length) return;
				await db.execute(
					sql`update application_events set created_at = created_at + ${hours(step.by)} where application_id = ${app(step.app)}`
				);
				return;
			case 'dropApplication':
				if (!existing.length) return;
				await db.execute(sql`delete from application_events where application_id = ${app(step.app)}`);
				await db.execute(sql`delete from applications where id = ${app(step.app)}`);
				return;
			case 'checkIn':
				await db.execute(
					sql`insert into check_ins (member_address, created_at) values ${sql.join(
						step.rows.map(([m, h]) => sql`(${MEMBERS[m]}, now() - ${hours(h)})`),
						sql`, `
					)}`
				);
				return;
			case 'dropCheckIns':
				await db.execute(
					sql`delete from check_ins where member_address = ${MEMBERS[step.member]} and created_at >= now() - ${hours(step.from)}`
				);
				return;
			case 'moveCheckIns':
				await db.execute(
					sql`update check_ins set created_at = created_at + ${hours(step.by)} where member_address = ${MEMBERS[step.member]}`
				);
				return;
		}
	}

	it('property: after any writes to the raw tables, every chart equals its aggregate over the raw rows', async () => {
		let run = 0;
		await fc.assert(
			fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 14 }), async (steps) => {
				// Every other run starts empty by TRUNCATE (its triggers empty the rollup), the others by DELETE.
				if (run++ % 2)
					await t.db.execute(
						sql`truncate application_events, application_revisions, application_notes, applications, check_ins cascade`
					);
				else {
					await t.db.execute(sql`delete from application_events`);
					await t.db.execute(sql`delete from application_revisions`);
					await t.db.execute(sql`delete from application_notes`);
					await t.db.execute(sql`delete from applications`);
					await t.db.execute(sql`delete from check_ins`);
				}
				for (const s of steps) await apply(s, t.db);
				const { rollup, raw } = await charts(t.db);
				expect(rollup).toEqual(raw);
			}),
			{ numRuns: engine === 'pglite' ? 60 : 30 }
		);
	}, 240_000);

	it('a portal with history before the migration: its backfill gives the same charts as the raw rows', async () => {
		await apply(
			{
				kind: 'apply',
				rows: [
					[3, { review: 'approved', allowlist: 'added', distribution: 'sent' }],
					[500, { review: 'pending', allowlist: 'pending', distribution: 'pending' }]
				]
			},
			t.db
		);
		await apply(
			{
				kind: 'event',
				rows: [
					{ app: 0, field: 'review', to: 'approved', after: 30 },
					{ app: 1, field: 'review', to: 'rejected', after: 2 }
				]
			},
			t.db
		);
		await apply(
			{
				kind: 'checkIn',
				rows: [
					[0, 1],
					[0, 2],
					[1, 30],
					[2, 2000]
				]
			},
			t.db
		);
		const expected = (await charts(t.db)).raw;
		// The rollup as the migration finds it before its backfill: empty, with history already in the raw tables.
		await t.db.execute(sql`delete from insights_applications`);
		await t.db.execute(sql`delete from insights_first_decisions`);
		await t.db.execute(sql`delete from insights_check_in_days`);
		expect((await charts(t.db)).rollup.funnel.submitted).toBe(0);
		// 0010's backfill of every rollup but insights_applications, which 0034 split into shards and recounts.
		const migration = readFileSync('drizzle/0010_insights_rollup.sql', 'utf8');
		const backfill = migration
			.slice(migration.indexOf('-- Backfill'))
			.split('--> statement-breakpoint')
			.filter((statement) => !statement.includes('insights_applications'));
		const shards = readFileSync('drizzle/0034_insights_applications_shards.sql', 'utf8')
			.split('--> statement-breakpoint')
			.filter((statement) => /^(?:DELETE|INSERT)\b/.test(statement.replace(/^\s*--.*$/gm, '').trim()));
		expect(backfill.length).toBeGreaterThan(3);
		expect(shards).toHaveLength(2);
		for (const statement of [...backfill, ...shards]) await t.db.execute(sql.raw(statement));
		expect((await charts(t.db)).rollup).toEqual(expected);
	}, 60_000);

	it.runIf(engine === 'postgres' && serverUrl)(
		'concurrent check-ins of one member on one day count the member once; of many members, each once',
		async () => {
			await t.db.execute(sql`delete from check_ins`);
			const many = Array.from({ length: 24 }, (_, i) => addr(0x1000 + i));
			await t.db.execute(
				sql`insert into members (address) values ${sql.join(
					many.map((m) => sql`(${m})`),
					sql`, `
				)} on conflict do nothing`
			);
			const one = (member: string) =>
				t.db.transaction(async (tx) => {
					await tx.execute(sql`insert into check_ins (member_address) values (${member})`);
					// Held open so the others' inserts overlap this one's before it commits.
					await tx.execute(sql`select pg_sleep(0.05)`);
				});
			await Promise.all([...Array.from({ length: 12 }, () => one(MEMBERS[0]!)), ...many.map(one)]);
			const { rollup, raw } = await charts(t.db);
			expect(rollup.checkInsPerDay).toEqual(raw.checkInsPerDay);
			const today = rollup.checkInsPerDay.at(-1);
			expect([today?.checkIns, today?.members]).toEqual([36, 25]);
		},
		60_000
	);

	it.runIf(engine === 'postgres' && serverUrl)(
		'a submission does not wait for another of the same week and shard to commit, and both are counted',
		async () => {
			// Two new members whose applications count in the same shard: only the count at commit keeps them apart.
			const [a, b] = rowsOf<{ address: string }>(
				await t.db.execute(sql`select address from (
						select '0x' || lpad(to_hex(12288 + i), 40, '0') as address from generate_series(0, 63) i) m
					where insights_shard(address) = insights_shard('0x' || lpad(to_hex(12288), 40, '0')) limit 2`)
			).map((r) => r.address);
			await t.db.execute(sql`insert into members (address) values (${a}), (${b}) on conflict do nothing`);
			const submitted = async () => (await funnel(t.db)).submitted;
			const before = await submitted();
			const submit = (tx: Pick<Database, 'execute'>, member: string) =>
				tx.execute(sql`insert into applications (applicant_address, display_name, motivation)
					values (${member}, 'Concurrent', 'Submitted while another is open')`);
			let release = () => {};
			const held = new Promise<void>((resolve) => (release = resolve));
			let firstInserted = () => {};
			const inserted = new Promise<void>((resolve) => (firstInserted = resolve));
			const first = t.db.transaction(async (tx) => {
				await submit(tx, a!);
				firstInserted();
				await held;
			});
			await inserted;
			try {
				// Counted by the insert itself, this one waited on the first one's row until it committed.
				await t.db.transaction(async (tx) => {
					await tx.execute(sql`set local lock_timeout = '2s'`);
					await submit(tx, b!);
				});
				expect(await submitted()).toBe(before + 1);
			} finally {
				release();
				await first;
			}
			expect(await submitted()).toBe(before + 2);
			const { rollup, raw } = await charts(t.db);
			expect(rollup.funnel).toEqual(raw.funnel);
		},
		60_000
	);
});
