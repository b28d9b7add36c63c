import { rubricOf, type Criterion } from '$lib/reviews/rubric';
import type { Database } from '../db/client';
import { currentFormFor } from '../forms/versions';
import { tallyFor, type VoteTally } from './tally';
import { currentVotes, type VoteRow } from './votes';
import { assignmentsOn } from './assigning';
import { conflictsOn } from './conflicts';
import { reviewersForApplication, reviewerSet } from './roster';
import type { Roster } from '../platform/roster';

/** What /admin/applications/[id] shows of the votes: every current vote, the tally, and the rubric's labels. */
export async function applicationVotes(
	db: Database,
	applicationId: string
): Promise<{ votes: VoteRow[]; tally: VoteTally; rubric: Criterion[] }> {
	const [votes, tally, form] = await Promise.all([
		currentVotes(db, applicationId),
		tallyFor(db, applicationId),
		// Its own programme's rubric (issue 57).
		currentFormFor(db, applicationId)
	]);
	return { votes, tally, rubric: rubricOf(form?.rubric ?? []) };
}

/**
 * Who reviews the application: its assignments, declared conflicts, and the reviewers an admin may still
 * assign (of every programme or of the application's own).
 */
export async function reviewersOf(db: Database, roster: Roster, applicationId: string, applicant: string) {
	const [assignments, conflicts, everyone] = await Promise.all([
		assignmentsOn(db, applicationId),
		conflictsOn(db, applicationId),
		reviewerSet(db, roster).then((all) => reviewersForApplication(db, applicationId, all))
	]);
	const taken = new Set([
		applicant,
		...assignments.map((a) => a.reviewerAddress),
		...conflicts.map((c) => c.reviewerAddress)
	]);
	return { assignments, conflicts, candidates: [...everyone].filter((a) => !taken.has(a)).sort() };
}
