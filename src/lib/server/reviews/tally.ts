import { sql, type SQL } from 'drizzle-orm';
import type { Database } from '../db/client';
import { rowsOf } from '../db/rows';

/**
 * Each application's current votes and what they add up to, computed from `application_votes` where it
 * is read (no second copy to keep in step: a vote written by SQL counts at once). The current vote is a
 * reviewer's newest row, read in the order of `application_votes_current_idx` (drizzle/0008).
 */

/** What a review table row and the admin's page show of an application's current votes. */
export interface VoteTally {
	approve: number;
	reject: number;
	abstain: number;
	/** The mean of the current non-abstaining votes' own mean scores; null without any. */
	meanScore: number | null;
}

export const NO_VOTES: VoteTally = { approve: 0, reject: 0, abstain: 0, meanScore: null };

/** The current votes (vote, scores) of the application whose id is `applicationId` (an SQL expression). */
const currentVotes = (applicationId: SQL) =>
	sql`(select distinct on (v.reviewer_address) v.vote, v.scores from application_votes as v
		where v.application_id = ${applicationId} order by v.reviewer_address, v.created_at desc, v.id desc)`;

// The review table's own row (drizzle leaves a one-table select's columns unqualified, so qualified by hand).
const ROW_ID = sql`"applications"."id"`;

/** An application's mean score as SQL, for the table's column and its `sort=score`. */
export const meanScoreSql = (applicationId: SQL = ROW_ID) =>
	sql`(select avg(vote_mean_score(c.scores)) filter (where c.vote <> 'abstain') from ${currentVotes(applicationId)} as c)`;

/** The tally as one jsonb value (one subquery a row). */
export const tallySql = (applicationId: SQL = ROW_ID) =>
	sql<unknown>`(select jsonb_build_object(
		'approve', count(*) filter (where c.vote = 'approve'),
		'reject', count(*) filter (where c.vote = 'reject'),
		'abstain', count(*) filter (where c.vote = 'abstain'),
		'meanScore', avg(vote_mean_score(c.scores)) filter (where c.vote <> 'abstain')
	) from ${currentVotes(applicationId)} as c)`;

/** How many reviewers have a current vote on the row's application (an index-only count). */
export const currentVoteCountSql = (applicationId: SQL = ROW_ID) =>
	sql`(select count(distinct v.reviewer_address) from application_votes as v where v.application_id = ${applicationId})`;

/** The review table's `votes` filter: `ready` reached REVIEW_QUORUM current votes, `needed` not yet. */
export const votesFilterSql = (votes: 'ready' | 'needed', quorum: number) =>
	votes === 'ready' ? sql`${currentVoteCountSql()} >= ${quorum}` : sql`${currentVoteCountSql()} < ${quorum}`;

/** A tally as the database returns it (jsonb, parsed by either driver). */
export function tallyOf(raw: unknown): VoteTally {
	const t = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Record<string, unknown> | null;
	if (!t) return NO_VOTES;
	const mean = t.meanScore === null || t.meanScore === undefined ? null : Number(t.meanScore);
	return {
		approve: Number(t.approve) || 0,
		reject: Number(t.reject) || 0,
		abstain: Number(t.abstain) || 0,
		meanScore: mean !== null && Number.isFinite(mean) ? mean : null
	};
}

/** One application's tally (the admin's page). */
export async function tallyFor(db: Database, applicationId: string): Promise<VoteTally> {
	const result = await db.execute(sql`select ${tallySql(sql`${applicationId}::uuid`)} as tally`);
	return tallyOf(rowsOf<{ tally: unknown }>(result)[0]?.tally);
}
