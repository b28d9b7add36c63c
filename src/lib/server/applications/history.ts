import { getTableColumns, sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { applicationRevisions, applications, type Application, type ApplicationEvent } from '../db/schema';

/**
 * An application as its applicant may read it: every column but the tally of the reviewers' votes
 * (#27; applicants never see votes or scores: docs/reviewers-guide.md), which triggers keep on the row (drizzle/0011),
 * and the count of the reviewers' notes (drizzle/0020): notes stay among the reviewers, and so does how many there are.
 */
export type ApplicantRow = Omit<
	Application,
	'votesApprove' | 'votesReject' | 'votesAbstain' | 'votesCurrent' | 'votesScored' | 'votesMeanScore' | 'notesCount'
>;

const {
	votesApprove: _approve,
	votesReject: _reject,
	votesAbstain: _abstain,
	votesCurrent: _current,
	votesScored: _scored,
	votesMeanScore: _mean,
	notesCount: _notes,
	...rest
} = getTableColumns(applications);
/** The columns of an ApplicantRow, for a select. */
export const applicantColumns = rest;

export interface ApplicationWithHistory extends ApplicantRow {
	/** Its audit rows, oldest first. */
	events: ApplicationEvent[];
}

// Newest first; a member has few applications, read through applications_applicant_idx.
export const newestFirst = sql`${applications.createdAt} desc nulls last`;

/** An audit row as its applicant sees it: who moved it is a role, never a reviewer's address. */
export type ApplicantEvent = Omit<ApplicationEvent, 'executorAddress'> & { executor: 'you' | 'reviewer' };

export interface ApplicantApplication extends ApplicantRow {
	events: ApplicantEvent[];
}

/**
 * The applicant's view of their applications: their own resubmissions say "you", every admin's
 * move "a reviewer" (docs/pages-and-forms.md "/apply"); no admin address leaves the server.
 */
export function asSeenByApplicant(applications: ApplicationWithHistory[], applicant: string): ApplicantApplication[] {
	return applications.map(({ events, ...application }) => ({
		...application,
		events: events.map(({ executorAddress, ...event }) => ({
			...event,
			executor: executorAddress === applicant.toLowerCase() ? 'you' : 'reviewer'
		}))
	}));
}

/**
 * Keeps an application's text as it stood before a change (an edit, a resubmission) for the admin's
 * "As submitted": it was submitted when the last revision was replaced, or else at creation.
 */
export async function keepRevision(tx: Database, before: Application): Promise<void> {
	await tx.insert(applicationRevisions).values({
		applicationId: before.id,
		displayName: before.displayName,
		motivation: before.motivation,
		contact: before.contact,
		answers: before.answers,
		formId: before.formId,
		submittedAt: sql`coalesce((select max(${applicationRevisions.replacedAt}) from ${applicationRevisions} where ${applicationRevisions.applicationId} = ${before.id}), (select ${applications.createdAt} from ${applications} where ${applications.id} = ${before.id}))`
	});
}
