import { and, asc, desc, eq, ne, sql } from 'drizzle-orm';
import type { Question } from '$lib/forms/questions';
import type { Database } from '../db/client';
import { formVersions } from '../forms/versions';
import { heldFor, placeIsNamed, roundsOf, type RoundOfMove } from '../programs/place';
import {
	applicationEvents,
	applicationNotes,
	applicationRevisions,
	applications,
	checkIns,
	type Application,
	type ApplicationEvent,
	type ApplicationNote,
	type ApplicationRevision,
	type CheckIn
} from '../db/schema';

export interface ApplicationDetail {
	application: Application;
	/** Earlier submitted versions, oldest first. */
	revisions: ApplicationRevision[];
	events: ApplicationEvent[];
	notes: ApplicationNote[];
	/** The member's other applications, newest first. */
	others: Pick<Application, 'id' | 'displayName' | 'review' | 'createdAt'>[];
	checkIns: CheckIn[];
	/** The application waiting longest for review, other than this one. */
	next: { id: string; displayName: string } | null;
	/** The questions of each form version this application and its revisions answered, by version id. */
	askedBy: Record<number, Question[]>;
	/**
	 * Its programme and round, named on the page when the portal has another programme or its programme another
	 * round (placeIsNamed: as the migration leaves it, nothing changes); `staged`: its decision is held from the applicant until the round's release.
	 */
	/** Its programme (with the community's translations of its name) and round. */
	place: (Pick<RoundOfMove, 'program' | 'round'> & { several: boolean; staged: boolean }) | null;
}

const RECENT_CHECKINS = 10;

/** Everything the page of one application shows; null for an unknown id. */
export async function applicationDetail(db: Database, id: string): Promise<ApplicationDetail | null> {
	const [application] = await db.select().from(applications).where(eq(applications.id, id)).limit(1);
	if (!application) return null;
	const [revisions, events, notes, others, recent, [next], rounds, several] = await Promise.all([
		db
			.select()
			.from(applicationRevisions)
			.where(eq(applicationRevisions.applicationId, id))
			.orderBy(asc(applicationRevisions.id)),
		db
			.select()
			.from(applicationEvents)
			.where(eq(applicationEvents.applicationId, id))
			.orderBy(asc(applicationEvents.id)),
		db.select().from(applicationNotes).where(eq(applicationNotes.applicationId, id)).orderBy(asc(applicationNotes.id)),
		db
			.select({
				id: applications.id,
				displayName: applications.displayName,
				review: applications.review,
				createdAt: applications.createdAt
			})
			.from(applications)
			.where(and(eq(applications.applicantAddress, application.applicantAddress), ne(applications.id, id)))
			.orderBy(desc(applications.createdAt)),
		db
			.select()
			.from(checkIns)
			.where(eq(checkIns.memberAddress, application.applicantAddress))
			.orderBy(sql`${checkIns.createdAt} desc nulls last`, desc(checkIns.id))
			.limit(RECENT_CHECKINS),
		db
			.select({ id: applications.id, displayName: applications.displayName })
			.from(applications)
			.where(and(eq(applications.review, 'pending'), ne(applications.id, id)))
			.orderBy(asc(applications.createdAt), asc(applications.id))
			.limit(1),
		roundsOf(db, [application.roundId]),
		placeIsNamed(db, application.programId, application.roundId)
	]);
	const round = rounds.get(application.roundId);
	const versions = await formVersions(db, [application.formId, ...revisions.map((r) => r.formId)]);
	return {
		application,
		revisions,
		events,
		notes,
		others,
		checkIns: recent,
		next: next ?? null,
		askedBy: Object.fromEntries(versions),
		place: round
			? {
					program: round.program,
					round: round.round,
					several,
					staged: heldFor(round, application.review) !== null
				}
			: null
	};
}
