import { asc, eq } from 'drizzle-orm';
import type { Question } from '$lib/forms/questions';
import { rubricOf, type Criterion } from '$lib/reviews/rubric';
import type { Database } from '../db/client';
import { applicationRevisions, applications, type ApplicationRevision } from '../db/schema';
import type { SignedInMember } from '../auth/guards';
import { currentForm, formVersions } from '../forms/versions';
import { currentVotes, votesBy, type VoteRow } from './votes';

export interface ReviewDetail {
	application: Pick<
		typeof applications.$inferSelect,
		| 'id'
		| 'applicantAddress'
		| 'displayName'
		| 'motivation'
		| 'contact'
		| 'formId'
		| 'answers'
		| 'eligibility'
		| 'review'
		| 'createdAt'
		| 'updatedAt'
	>;
	revisions: ApplicationRevision[];
	askedBy: Record<number, Question[]>;
	rubric: Criterion[];
	/** This reviewer's votes, newest first (the first is their current vote). */
	mine: VoteRow[];
	/**
	 * The other reviewers' current votes: only once this reviewer has voted (admins always), so that no
	 * one votes after reading the others' verdicts. Null while hidden.
	 */
	others: VoteRow[] | null;
	/** The reviewer's own application: no vote allowed (conflict of interest). */
	own: boolean;
}

/** Everything /review/[id] shows a reviewer; null for an unknown id. */
export async function reviewDetail(db: Database, reviewer: SignedInMember, id: string): Promise<ReviewDetail | null> {
	const [application] = await db
		.select({
			id: applications.id,
			applicantAddress: applications.applicantAddress,
			displayName: applications.displayName,
			motivation: applications.motivation,
			contact: applications.contact,
			formId: applications.formId,
			answers: applications.answers,
			eligibility: applications.eligibility,
			review: applications.review,
			createdAt: applications.createdAt,
			updatedAt: applications.updatedAt
		})
		.from(applications)
		.where(eq(applications.id, id))
		.limit(1);
	if (!application) return null;
	const [revisions, mine, form] = await Promise.all([
		db
			.select()
			.from(applicationRevisions)
			.where(eq(applicationRevisions.applicationId, id))
			.orderBy(asc(applicationRevisions.id)),
		votesBy(db, id, reviewer.address),
		currentForm(db)
	]);
	const revealed = reviewer.isAdmin || mine.length > 0;
	const [versions, all] = await Promise.all([
		formVersions(db, [application.formId, ...revisions.map((r) => r.formId)]),
		revealed ? currentVotes(db, id) : Promise.resolve(null)
	]);
	return {
		application,
		revisions,
		askedBy: Object.fromEntries(versions),
		rubric: rubricOf(form.rubric),
		mine,
		others: all ? all.filter((v) => v.reviewerAddress !== reviewer.address) : null,
		own: application.applicantAddress === reviewer.address
	};
}
