import { rubricOf, type Criterion } from '$lib/reviews/rubric';
import type { Database } from '../db/client';
import { currentForm } from '../forms/versions';
import { tallyFor, type VoteTally } from './tally';
import { currentVotes, type VoteRow } from './votes';

/** What /admin/applications/[id] shows of the votes: every current vote, the tally, and the rubric's labels. */
export async function applicationVotes(
	db: Database,
	applicationId: string
): Promise<{ votes: VoteRow[]; tally: VoteTally; rubric: Criterion[] }> {
	const [votes, tally, form] = await Promise.all([
		currentVotes(db, applicationId),
		tallyFor(db, applicationId),
		currentForm(db)
	]);
	return { votes, tally, rubric: rubricOf(form.rubric) };
}
