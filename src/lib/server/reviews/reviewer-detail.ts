import { and, asc, eq } from 'drizzle-orm';
import type { Question } from '$lib/forms/questions';
import { rubricOf, type Criterion } from '$lib/reviews/rubric';
import type { Database } from '../db/client';
import {
	applicationEvents,
	applicationRevisions,
	applications,
	reviewAssignments,
	reviewConflicts,
	type ApplicationEvent,
	type ApplicationRevision
} from '../db/schema';
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
	 * The other reviewers' current votes: only once this reviewer has approved or rejected (admins
	 * always), never after a declared conflict, so that no one votes after reading the others'
	 * verdicts (an abstention opens nothing). Null while hidden.
	 */
	others: VoteRow[] | null;
	/** The reviewer's own application: no vote allowed (conflict of interest). */
	own: boolean;
	/** This reviewer's declared conflict of interest on it, if any: no vote, no view of the others. */
	conflict: { reason: string; createdAt: Date } | null;
	/** Assigned to this reviewer (decision 0040). */
	assigned: boolean;
	/** The review moves of its history, oldest first (what was asked before a resubmission: asksAnswered). */
	reviewEvents: Pick<ApplicationEvent, 'field' | 'fromState' | 'toState' | 'asks'>[];
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
			programId: applications.programId,
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
	const mineOn = <T extends typeof reviewConflicts | typeof reviewAssignments>(t: T) =>
		and(eq(t.applicationId, id), eq(t.reviewerAddress, reviewer.address));
	const [revisions, mine, form, [conflict], [assignment], reviewEvents] = await Promise.all([
		db
			.select()
			.from(applicationRevisions)
			.where(eq(applicationRevisions.applicationId, id))
			.orderBy(asc(applicationRevisions.id)),
		votesBy(db, id, reviewer.address),
		// Its own programme's rubric (issue 57).
		currentForm(db, application.programId),
		db
			.select({ reason: reviewConflicts.reason, createdAt: reviewConflicts.createdAt })
			.from(reviewConflicts)
			.where(mineOn(reviewConflicts)),
		db.select({ at: reviewAssignments.assignedAt }).from(reviewAssignments).where(mineOn(reviewAssignments)),
		db
			.select({
				field: applicationEvents.field,
				fromState: applicationEvents.fromState,
				toState: applicationEvents.toState,
				asks: applicationEvents.asks
			})
			.from(applicationEvents)
			.where(and(eq(applicationEvents.applicationId, id), eq(applicationEvents.field, 'review')))
			.orderBy(asc(applicationEvents.id))
	]);
	const revealed = !conflict && (reviewer.isAdmin || mine.some((v) => v.vote !== 'abstain'));
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
		own: application.applicantAddress === reviewer.address,
		conflict: conflict ?? null,
		assigned: !!assignment,
		reviewEvents
	};
}
