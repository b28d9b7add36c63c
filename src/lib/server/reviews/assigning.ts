import { and, asc, eq, sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { applications, reviewAssignments, reviewConflicts } from '../db/schema';
import type { SignedInMember } from '../auth/guards';
import { conflict, fieldError, notFound, type Outcome } from '../platform/outcome';
import { lockAssignments } from './assignment';
import { m } from '$lib/paraglide/messages';
import { reviewersForApplication, reviewerSet } from './roster';
import type { Roster } from '../platform/roster';

export const ASSIGN_FIELDS = ['reviewer'] as const;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

function reviewerOf(input: Record<string, unknown>): Outcome<string> {
	const raw = input.reviewer;
	const text = typeof raw === 'string' ? raw.trim() : '';
	if (!ADDRESS.test(text)) return fieldError('reviewer', m.assign_error_choose());
	return { ok: true, value: text.toLowerCase() };
}

/**
 * An admin assigns a reviewer to an application: a current reviewer of every programme or of the
 * application's programme, never its applicant nor one with a conflict.
 */
export async function assignReviewer(
	db: Database,
	roster: Roster,
	admin: SignedInMember,
	applicationId: string,
	input: Record<string, unknown>
): Promise<Outcome<{ reviewer: string }>> {
	const reviewer = reviewerOf(input);
	if (!reviewer.ok) return reviewer;
	const address = reviewer.value;
	const everyone = await reviewerSet(db, roster);
	return db.transaction(async (tx): Promise<Outcome<{ reviewer: string }>> => {
		await lockAssignments(tx);
		const [app] = await tx
			.select({ applicant: applications.applicantAddress })
			.from(applications)
			.where(eq(applications.id, applicationId));
		if (!app) return notFound(m.admin_no_application_id());
		// A reviewer of every programme or of this application's own (issue 59).
		if (!(await reviewersForApplication(tx, applicationId, everyone)).has(address))
			return fieldError('reviewer', m.assign_error_not_reviewer());
		if (app.applicant === address) return fieldError('reviewer', m.assign_error_applicant());
		const [declared] = await tx
			.select({ at: reviewConflicts.createdAt })
			.from(reviewConflicts)
			.where(and(eq(reviewConflicts.applicationId, applicationId), eq(reviewConflicts.reviewerAddress, address)));
		if (declared) return conflict(m.assign_error_conflict());
		await tx
			.insert(reviewAssignments)
			.values({ applicationId, reviewerAddress: address, assignedBy: admin.address })
			.onConflictDoNothing();
		return { ok: true, value: { reviewer: address } };
	});
}

/** An admin takes an assignment back (nobody replaces it: the admin chose). */
export async function unassignReviewer(
	db: Database,
	applicationId: string,
	input: Record<string, unknown>
): Promise<Outcome<{ reviewer: string }>> {
	const reviewer = reviewerOf(input);
	if (!reviewer.ok) return reviewer;
	const [row] = await db
		.delete(reviewAssignments)
		.where(
			and(eq(reviewAssignments.applicationId, applicationId), eq(reviewAssignments.reviewerAddress, reviewer.value))
		)
		.returning();
	if (!row) return notFound(m.assign_error_not_assigned());
	return { ok: true, value: { reviewer: reviewer.value } };
}

export interface AssignmentRow {
	reviewerAddress: string;
	assignedAt: Date;
	assignedBy: string;
	/** Still waiting for this reviewer's vote while the review is pending. */
	open: boolean;
}

/** An application's assignments, oldest first, each marked open or not. */
export function assignmentsOn(db: Database, applicationId: string): Promise<AssignmentRow[]> {
	return db
		.select({
			reviewerAddress: reviewAssignments.reviewerAddress,
			assignedAt: reviewAssignments.assignedAt,
			assignedBy: reviewAssignments.assignedBy,
			open: sql<boolean>`(select a.review = 'pending' from applications a where a.id = ${reviewAssignments.applicationId})
				and not exists (select 1 from application_votes v where v.application_id = ${reviewAssignments.applicationId}
				and v.reviewer_address = ${reviewAssignments.reviewerAddress})`
		})
		.from(reviewAssignments)
		.where(eq(reviewAssignments.applicationId, applicationId))
		.orderBy(asc(reviewAssignments.assignedAt), asc(reviewAssignments.reviewerAddress));
}
