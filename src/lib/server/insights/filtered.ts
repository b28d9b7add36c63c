import { sql, type SQL } from 'drizzle-orm';
import type { Database } from '../db/client';
import { rowsOf } from '../db/rows';
import {
	WEEK_SERIES,
	WINDOW_START,
	day,
	type Funnel,
	type ReviewerVotes,
	type WeeklyApplications,
	type WeeklyWait
} from './queries';

/**
 * Insights of one programme or round (#57). The rollup tables behind the unfiltered charts count the
 * whole portal (they have no programme), so a filtered chart reads the programme's own rows: its
 * applications, their first decisions (insights_first_decisions, one row per decided application) and
 * their current votes. Each is one statement whose work follows the programme's applications, not the
 * portal's; the same charts, the same shapes.
 */
export interface InsightsFilter {
	/** A programme's slug: an unknown one matches nothing. */
	program?: string;
	round?: number;
}

export const isFiltered = (filter: InsightsFilter) => filter.program !== undefined || filter.round !== undefined;

/** The filter on an `applications` row aliased `a`. */
function matches(filter: InsightsFilter): SQL {
	const parts: SQL[] = [sql`true`];
	if (filter.program !== undefined)
		parts.push(sql`a.program_id = (select p.id from programs p where p.slug = ${filter.program})`);
	if (filter.round !== undefined) parts.push(sql`a.round_id = ${filter.round}`);
	return sql.join(parts, sql` and `);
}

export async function applicationsPerWeekOf(db: Database, filter: InsightsFilter): Promise<WeeklyApplications[]> {
	const result = await db.execute(sql`
		with weeks as (${WEEK_SERIES}),
		own as (
			select date_trunc('week', a.created_at, 'UTC') as week, a.review from applications a
			where ${matches(filter)} and a.created_at >= ${WINDOW_START}
		)
		select ${day('w.week')} as week,
			count(o.review) filter (where o.review = 'pending')::int as "pending",
			count(o.review) filter (where o.review = 'needs_info')::int as "needsInfo",
			count(o.review) filter (where o.review = 'approved')::int as "approved",
			count(o.review) filter (where o.review = 'rejected')::int as "rejected",
			count(o.review) filter (where o.review = 'withdrawn')::int as "withdrawn"
		from weeks w left join own o on o.week = w.week
		group by w.week order by w.week`);
	return rowsOf<WeeklyApplications>(result);
}

export async function funnelOf(db: Database, filter: InsightsFilter): Promise<Funnel> {
	const result = await db.execute(sql`
		select count(*)::int as "submitted",
			count(*) filter (where a.review = 'approved')::int as "approved",
			count(*) filter (where a.allowlist = 'added')::int as "allowlisted",
			count(*) filter (where a.distribution = 'sent')::int as "sent"
		from applications a where ${matches(filter)}`);
	return rowsOf<Funnel>(result)[0]!;
}

/** The wait chart of the programme's applications: Postgres's percentile_cont over their first decisions. */
export async function timeToFirstDecisionOf(db: Database, filter: InsightsFilter): Promise<WeeklyWait[]> {
	const result = await db.execute(sql`
		with weeks as (${WEEK_SERIES}),
		own as (
			select date_trunc('week', a.created_at, 'UTC') as week, f.seconds from applications a
			left join insights_first_decisions f on f.application_id = a.id
			where ${matches(filter)} and a.created_at >= ${WINDOW_START}
		),
		per_week as (
			select week, count(seconds) as decided, count(*) - count(seconds) as waiting,
				percentile_cont(0.5) within group (order by seconds) as m,
				percentile_cont(0.9) within group (order by seconds) as q
			from own group by week
		)
		select ${day('w.week')} as week, coalesce(p.decided, 0)::int as "decided",
			coalesce(p.waiting, 0)::int as "waiting", p.m as "medianSeconds", p.q as "p90Seconds"
		from weeks w left join per_week p on p.week = w.week order by w.week`);
	return rowsOf<WeeklyWait>(result).map((row) => ({
		...row,
		medianSeconds: row.medianSeconds === null ? null : Number(row.medianSeconds),
		p90Seconds: row.p90Seconds === null ? null : Number(row.p90Seconds)
	}));
}

/** Each reviewer's current votes (newest per application) on the programme's applications. */
export async function votesPerReviewerOf(db: Database, filter: InsightsFilter): Promise<ReviewerVotes[] | null> {
	const result = await db.execute(sql`
		with current as (
			select distinct on (v.application_id, v.reviewer_address) v.reviewer_address, v.vote
			from application_votes v join applications a on a.id = v.application_id
			where ${matches(filter)}
			order by v.application_id, v.reviewer_address, v.created_at desc, v.id desc
		)
		select reviewer_address as "reviewer",
			count(*) filter (where vote = 'approve')::int as "approve",
			count(*) filter (where vote = 'reject')::int as "reject",
			count(*) filter (where vote = 'abstain')::int as "abstain"
		from current group by reviewer_address order by count(*) desc, reviewer_address limit 30`);
	const rows = rowsOf<ReviewerVotes>(result);
	return rows.length ? rows : null;
}
