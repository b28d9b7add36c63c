import { eq, gte, lt, sql, type Placeholder } from 'drizzle-orm';
import type { Database } from '../db/client';
import { applications } from '../db/schema';

/**
 * Each application's tally of its current votes (a reviewer's newest row), kept on `applications` by
 * the database itself: a statement-level trigger on `application_votes` recounts the applications a
 * statement touched (drizzle/0011, docs/decisions/0033-vote-tally.md), so a vote written by SQL counts
 * at once, as one cast by the portal does. Nothing here writes it.
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

/** The tally's columns, for a select on `applications`. */
export const tallyColumns = {
	approve: applications.votesApprove,
	reject: applications.votesReject,
	abstain: applications.votesAbstain,
	meanScore: applications.votesMeanScore
};

/**
 * The key of sort=score, ascending: minus the mean score, no score counting as 0. Written exactly as the
 * expression of `applications_score_queue_idx` and `applications_review_score_queue_idx`, so the
 * review table's order and its cursor's row comparison are a walk over one of them.
 */
export const scoreKeySql = sql`(- coalesce(${applications.votesMeanScore}, 0))`;

/**
 * The review table's `votes` filter: `ready` reached REVIEW_QUORUM current votes (an abstention counts:
 * the reviewer read it), `needed` not yet. `applications_(review_)votes_idx` serve its capped tab counts.
 */
export const votesFilterSql = (votes: 'ready' | 'needed', quorum: number | Placeholder) =>
	votes === 'ready' ? gte(applications.votesCurrent, quorum) : lt(applications.votesCurrent, quorum);

/** A tally as the columns come back (numeric as text from either driver). */
export function tallyOf(raw: {
	approve: number;
	reject: number;
	abstain: number;
	meanScore: string | null;
}): VoteTally {
	const mean = raw.meanScore === null ? null : Number(raw.meanScore);
	return {
		approve: raw.approve,
		reject: raw.reject,
		abstain: raw.abstain,
		meanScore: mean !== null && Number.isFinite(mean) ? mean : null
	};
}

/** One application's tally (the admin's page). */
export async function tallyFor(db: Database, applicationId: string): Promise<VoteTally> {
	const [row] = await db.select(tallyColumns).from(applications).where(eq(applications.id, applicationId));
	return row ? tallyOf(row) : NO_VOTES;
}
