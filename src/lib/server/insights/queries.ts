import { sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { executePrepared } from '../db/prepared';
import { rowsOf } from '../db/rows';

// Each chart is one aggregate statement over the rollup tables of drizzle/0010 and 0012 (kept by
// triggers in the statements that write the raw rows, docs/decisions/0032-insights-rollup.md and
// 0034-insights-wait-ranks.md), over a window that
// generate_series lays out on the database clock (UTC weeks from Monday, UTC days), so every bucket is
// there even with no rows and the work follows the number of weeks and days, not of applications.

export const WEEKS = 26;
export const DAYS = 90;

export const WEEK_SERIES = sql`select generate_series(
	date_trunc('week', now(), 'UTC') - interval '${sql.raw(String((WEEKS - 1) * 168))} hours',
	date_trunc('week', now(), 'UTC'),
	interval '168 hours') as week`;

/**
 * The first week of the window (26 Mondays back, this one included). A join of the window with a rollup
 * table says it again on the rollup's side: the planner cannot tell how many rows generate_series gives
 * (it assumes 1,000) and otherwise hashes the whole table, every week or day since the first, where the
 * window's range of its primary key reads only the window's rows (the figures: bench/README.md
 * "Figures behind the code").
 */
export const WINDOW_START = sql`(date_trunc('week', now(), 'UTC') - interval '${sql.raw(String((WEEKS - 1) * 168))} hours')`;

/** The first day of the check-in window (90 days back, today included). */
const DAY_WINDOW_START = sql`(date_trunc('day', now(), 'UTC') - interval '${sql.raw(String((DAYS - 1) * 24))} hours')`;

export const day = (column: string) => sql.raw(`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD')`);

export interface WeeklyApplications {
	week: string;
	pending: number;
	needsInfo: number;
	approved: number;
	rejected: number;
	/** Withdrawn by the applicant (issue 58): a state of its own, never folded into pending. */
	withdrawn: number;
}

/** Applications submitted per week for the last 26 weeks, split by their current review state. */
export async function applicationsPerWeek(db: Database): Promise<WeeklyApplications[]> {
	const result = await db.execute(sql`
		with weeks as (${WEEK_SERIES})
		select ${day('w.week')} as week,
			coalesce(sum(r.applications) filter (where r.review = 'pending'), 0)::int as "pending",
			coalesce(sum(r.applications) filter (where r.review = 'needs_info'), 0)::int as "needsInfo",
			coalesce(sum(r.applications) filter (where r.review = 'approved'), 0)::int as "approved",
			coalesce(sum(r.applications) filter (where r.review = 'rejected'), 0)::int as "rejected",
			coalesce(sum(r.applications) filter (where r.review = 'withdrawn'), 0)::int as "withdrawn"
		from weeks w
		left join insights_applications r on r.week = w.week and r.week >= ${WINDOW_START}
		group by w.week order by w.week`);
	return rowsOf<WeeklyApplications>(result);
}

export interface Funnel {
	submitted: number;
	approved: number;
	allowlisted: number;
	sent: number;
}

/** Every application ever submitted, and how many reached each later step (current states). */
export async function funnel(db: Database): Promise<Funnel> {
	const result = await db.execute(sql`
		select coalesce(sum(applications), 0)::int as "submitted",
			coalesce(sum(applications) filter (where review = 'approved'), 0)::int as "approved",
			coalesce(sum(applications) filter (where allowlist = 'added'), 0)::int as "allowlisted",
			coalesce(sum(applications) filter (where distribution = 'sent'), 0)::int as "sent"
		from insights_applications`);
	return rowsOf<Funnel>(result)[0]!;
}

export interface WeeklyWait {
	week: string;
	decided: number;
	waiting: number;
	/** Seconds from submission to the first decision; null when none in that week was decided. */
	medianSeconds: number | null;
	p90Seconds: number | null;
}

/**
 * Time from submission to the first decision (the first review move out of pending: needs_info,
 * approved or rejected), by week of submission for the last 26 weeks; `waiting` have none yet.
 */
export async function timeToFirstDecision(db: Database): Promise<WeeklyWait[]> {
	// Prepared (docs/decisions/0031-prepared-statements-and-the-hot-path.md): its text never changes,
	// and planning it costs more than running it.
	const result = await executePrepared(db, 'insights_time_to_first_decision', timeToFirstDecisionStatement());
	return rowsOf<WeeklyWait>(result).map((row) => ({
		...row,
		medianSeconds: row.medianSeconds === null ? null : Number(row.medianSeconds),
		p90Seconds: row.p90Seconds === null ? null : Number(row.p90Seconds)
	}));
}

/**
 * The wait chart's statement (exported so that tests can EXPLAIN what it reads). The median and 90th
 * percentile are Postgres's `percentile_cont` over each week's waits, computed without reading every
 * wait (drizzle/0012, docs/decisions/0034-insights-wait-ranks.md): p of n values is the value of rank
 * floor(p(n-1)) (from 0) moved toward that of rank ceil(p(n-1)) by the fraction between, in
 * percentile_cont's own float arithmetic. The window's bucket counts (a few dozen rows a week) say
 * which bucket holds each of those ranks; a rank at either end of its bucket, or in a bucket of equal
 * waits, is the bucket's min or max; any other is read as an offset into that bucket's index range,
 * from its nearer end.
 */
export function timeToFirstDecisionStatement() {
	const holds = (k: string) => sql.raw(`(${k} >= below and ${k} < below + decided)`);
	return sql`
		with weeks as (${WEEK_SERIES}),
		submitted as (
			select week, sum(applications) as n from insights_applications
			where week >= ${WINDOW_START} group by week
		),
		buckets as (
			select week, bucket, decided, min_seconds, max_seconds,
				sum(decided) over (partition by week order by bucket) - decided as below,
				sum(decided) over (partition by week) as n
			from insights_wait_buckets where week >= ${WINDOW_START} and decided > 0
		),
		ranks as (
			select *, 0.5::float8 * (n - 1)::float8 as m, 0.9::float8 * (n - 1)::float8 as q from buckets
		),
		-- The (at most four) buckets of each week that hold a wanted rank, one row per rank; the second
		-- condition, on the bucket alone, drops every other bucket before the ranks are laid out.
		holding as (
			select r.week, r.n, r.bucket, r.below, r.decided, r.min_seconds, r.max_seconds, k.k
			from ranks r
			cross join lateral (values (floor(r.m)), (ceil(r.m)), (floor(r.q)), (ceil(r.q))) k(k)
			where ${holds('k.k')}
				and (${holds('floor(r.m)')} or ${holds('ceil(r.m)')} or ${holds('floor(r.q)')} or ${holds('ceil(r.q)')})
		),
		-- Materialized: each rank's value is read once, not once per percentile that uses it.
		ranked as materialized (
			select distinct on (week, k) week, n, k, case
				when min_seconds = max_seconds or k = below then min_seconds
				when k = below + decided - 1 then max_seconds
				when k - below <= below + decided - 1 - k then (
					select f.seconds from insights_first_decisions f
					where f.week = h.week and insights_wait_bucket(f.seconds) = h.bucket
					order by f.seconds offset (k - below)::bigint limit 1)
				else (
					select f.seconds from insights_first_decisions f
					where f.week = h.week and insights_wait_bucket(f.seconds) = h.bucket
					order by f.seconds desc offset (below + decided - 1 - k)::bigint limit 1)
			end as seconds
			from holding h order by week, k
		),
		percentiles as (
			select week, n, 0.5::float8 * (n - 1)::float8 as m, 0.9::float8 * (n - 1)::float8 as q,
				max(seconds) filter (where k = floor(0.5::float8 * (n - 1)::float8)) as m_lo,
				max(seconds) filter (where k = ceil(0.5::float8 * (n - 1)::float8)) as m_hi,
				max(seconds) filter (where k = floor(0.9::float8 * (n - 1)::float8)) as q_lo,
				max(seconds) filter (where k = ceil(0.9::float8 * (n - 1)::float8)) as q_hi
			from ranked group by week, n
		)
		select ${day('w.week')} as week,
			coalesce(p.n, 0)::int as "decided",
			(coalesce(s.n, 0) - coalesce(p.n, 0))::int as "waiting",
			case when floor(p.m) = ceil(p.m) then p.m_lo
				else p.m_lo + ((p.m - floor(p.m)) * (p.m_hi - p.m_lo)) end as "medianSeconds",
			case when floor(p.q) = ceil(p.q) then p.q_lo
				else p.q_lo + ((p.q - floor(p.q)) * (p.q_hi - p.q_lo)) end as "p90Seconds"
		from weeks w
		left join submitted s on s.week = w.week
		left join percentiles p on p.week = w.week
		order by w.week`;
}

export interface DailyCheckIns {
	day: string;
	checkIns: number;
	members: number;
}

/** Check-ins per UTC day for the last 90 days, with how many distinct members checked in. */
export async function checkInsPerDay(db: Database): Promise<DailyCheckIns[]> {
	const result = await db.execute(sql`
		with days as (select generate_series(
			${DAY_WINDOW_START}, date_trunc('day', now(), 'UTC'), interval '24 hours') as day)
		select ${day('d.day')} as day,
			coalesce(sum(r.check_ins), 0)::int as "checkIns",
			coalesce(sum(r.members), 0)::int as "members"
		from days d left join insights_check_in_days r on r.day = d.day and r.day >= ${DAY_WINDOW_START}
		group by d.day order by d.day`);
	return rowsOf<DailyCheckIns>(result);
}

export interface ReviewerVotes {
	reviewer: string;
	approve: number;
	reject: number;
	abstain: number;
}

/**
 * Current votes (each reviewer's newest per application) per reviewer, in one aggregate statement over
 * their rollup (drizzle/0017: a row per reviewer and choice, not a read of every vote); null when no
 * reviewer has voted yet, so the chart is left out ("when there are reviewers").
 */
export async function votesPerReviewer(db: Database): Promise<ReviewerVotes[] | null> {
	const result = await db.execute(sql`
		select reviewer_address as "reviewer",
			coalesce(sum(votes) filter (where vote = 'approve'), 0)::int as "approve",
			coalesce(sum(votes) filter (where vote = 'reject'), 0)::int as "reject",
			coalesce(sum(votes) filter (where vote = 'abstain'), 0)::int as "abstain"
		from insights_reviewer_votes where votes > 0
		group by reviewer_address order by sum(votes) desc, reviewer_address limit 30`);
	const rows = rowsOf<ReviewerVotes>(result);
	return rows.length ? rows : null;
}
