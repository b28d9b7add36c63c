import { sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { rowsOf } from '../db/rows';

// Each chart is one aggregate statement over a window that generate_series lays out on the database
// clock (UTC weeks from Monday, UTC days), so every bucket is there even with no rows and the
// index range scans of drizzle/0007 bound the work by the window, not by the whole table.

export const WEEKS = 26;
export const DAYS = 90;

const WEEK_SERIES = sql`select generate_series(
	date_trunc('week', now(), 'UTC') - interval '${sql.raw(String((WEEKS - 1) * 168))} hours',
	date_trunc('week', now(), 'UTC'),
	interval '168 hours') as week`;

/** The first week of the window (26 Mondays back, this one included). */
const WINDOW_START = sql`(date_trunc('week', now(), 'UTC') - interval '${sql.raw(String((WEEKS - 1) * 168))} hours')`;

const day = (column: string) => sql.raw(`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD')`);

export interface WeeklyApplications {
	week: string;
	pending: number;
	needsInfo: number;
	approved: number;
	rejected: number;
}

/** Applications submitted per week for the last 26 weeks, split by their current review state. */
export async function applicationsPerWeek(db: Database): Promise<WeeklyApplications[]> {
	const result = await db.execute(sql`
		with weeks as (${WEEK_SERIES})
		select ${day('w.week')} as week,
			count(a.id) filter (where a.review = 'pending')::int as "pending",
			count(a.id) filter (where a.review = 'needs_info')::int as "needsInfo",
			count(a.id) filter (where a.review = 'approved')::int as "approved",
			count(a.id) filter (where a.review = 'rejected')::int as "rejected"
		from weeks w
		left join applications a on a.created_at >= w.week and a.created_at < w.week + interval '168 hours'
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
		select count(*)::int as "submitted",
			count(*) filter (where review = 'approved')::int as "approved",
			count(*) filter (where allowlist = 'added')::int as "allowlisted",
			count(*) filter (where distribution = 'sent')::int as "sent"
		from applications`);
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
	// `decided` reads the window's applications in one index range (not once per week) and finds each
	// one's first decision by an index-only probe.
	const result = await db.execute(sql`
		with weeks as (${WEEK_SERIES}),
		decided as (
			select date_trunc('week', a.created_at, 'UTC') as week, extract(epoch from (
				select min(e.created_at) from application_events e
				where e.application_id = a.id and e.field = 'review' and e.to_state <> 'pending'
			) - a.created_at) as seconds
			from applications a
			where a.created_at >= ${WINDOW_START}
		)
		select ${day('w.week')} as week,
			count(d.seconds)::int as "decided",
			(count(d.week) - count(d.seconds))::int as "waiting",
			percentile_cont(0.5) within group (order by d.seconds)::float8 as "medianSeconds",
			percentile_cont(0.9) within group (order by d.seconds)::float8 as "p90Seconds"
		from weeks w left join decided d on d.week = w.week
		group by w.week order by w.week`);
	return rowsOf<WeeklyWait>(result).map((row) => ({
		...row,
		medianSeconds: row.medianSeconds === null ? null : Number(row.medianSeconds),
		p90Seconds: row.p90Seconds === null ? null : Number(row.p90Seconds)
	}));
}

export interface DailyCheckIns {
	day: string;
	checkIns: number;
	members: number;
}

/** Check-ins per UTC day for the last 90 days, with how many distinct members checked in. */
export async function checkInsPerDay(db: Database): Promise<DailyCheckIns[]> {
	// Distinct members as (day, member) groups first: one hash aggregate, where count(distinct) would
	// sort every day's rows.
	const result = await db.execute(sql`
		with days as (select generate_series(
			date_trunc('day', now(), 'UTC') - interval '${sql.raw(String((DAYS - 1) * 24))} hours',
			date_trunc('day', now(), 'UTC'), interval '24 hours') as day),
		per_member as (
			select date_trunc('day', created_at, 'UTC') as day, member_address, count(*) as n
			from check_ins
			where created_at >= date_trunc('day', now(), 'UTC') - interval '${sql.raw(String((DAYS - 1) * 24))} hours'
			group by 1, 2
		)
		select ${day('d.day')} as day,
			coalesce(sum(p.n), 0)::int as "checkIns",
			count(p.member_address)::int as "members"
		from days d left join per_member p on p.day = d.day
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
 * Current votes (each reviewer's newest per application) per reviewer, in one aggregate statement; null
 * when no reviewer has voted yet, so the chart is left out ("when there are reviewers").
 */
export async function votesPerReviewer(db: Database): Promise<ReviewerVotes[] | null> {
	const result = await db.execute(sql`
		select reviewer_address as "reviewer",
			count(*) filter (where vote = 'approve')::int as "approve",
			count(*) filter (where vote = 'reject')::int as "reject",
			count(*) filter (where vote = 'abstain')::int as "abstain"
		from (
			select distinct on (application_id, reviewer_address) reviewer_address, vote
			from application_votes order by application_id, reviewer_address, created_at desc, id desc
		) current
		group by reviewer_address order by count(*) desc, reviewer_address limit 30`);
	const rows = rowsOf<ReviewerVotes>(result);
	return rows.length ? rows : null;
}
