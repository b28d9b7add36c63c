import { asc, eq } from 'drizzle-orm';
import * as v from 'valibot';
import type { Database } from '../db/client';
import { applications, reviewConflicts, type ReviewConflict } from '../db/schema';
import type { SignedInMember } from '../auth/guards';
import { textField, validate } from '../platform/forms';
import { forbidden, notFound, type Outcome } from '../platform/outcome';
import { passOnOpenAssignments } from './assignment';
import type { Roster } from '../platform/roster';
import { m } from '$lib/paraglide/messages';

export const CONFLICT_FIELDS = ['reason'] as const;
export const CONFLICT_REASON = { min: 1, max: 500 } as const;

// Built per declaration: its label is in the request's locale.
const conflictSchema = () =>
	v.object({ reason: textField(m.review_conflict_reason_label(), { ...CONFLICT_REASON, multiline: true }) });

/**
 * declareConflict: `reason` 1–500 characters → one transaction that records the declaration (a second
 * one keeps the first) and passes the reviewer's open assignment on by the rule (decision 0040). From
 * then on the reviewer cannot vote on the application (403) nor read its other votes. `roster`: the
 * configured reviewers (runtime().roster), among whom the assignment passes on.
 */
export async function declareConflict(
	db: Database,
	roster: Roster,
	reviewer: SignedInMember,
	applicationId: string,
	input: Record<string, unknown>
): Promise<Outcome<{ reason: string }>> {
	const parsed = validate(conflictSchema(), input);
	if (!parsed.ok) return parsed;
	const { reason } = parsed.value;
	return db.transaction(async (tx): Promise<Outcome<{ reason: string }>> => {
		const [app] = await tx
			.select({ applicant: applications.applicantAddress })
			.from(applications)
			.where(eq(applications.id, applicationId));
		if (!app) return notFound(m.review_error_no_application());
		if (app.applicant === reviewer.address) return forbidden(m.review_error_own_conflict());
		await tx
			.insert(reviewConflicts)
			.values({ applicationId, reviewerAddress: reviewer.address, reason })
			.onConflictDoNothing();
		await passOnOpenAssignments(tx, roster, reviewer.address, applicationId);
		return { ok: true, value: { reason } };
	});
}

/** The declarations on an application, oldest first (admins read them on its page). */
export function conflictsOn(db: Database, applicationId: string): Promise<ReviewConflict[]> {
	return db
		.select()
		.from(reviewConflicts)
		.where(eq(reviewConflicts.applicationId, applicationId))
		.orderBy(asc(reviewConflicts.createdAt));
}
