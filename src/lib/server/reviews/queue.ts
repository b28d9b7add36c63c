import { and, asc, desc, eq, inArray, ne, sql } from 'drizzle-orm';
import { ADMIN_PAGE_SIZE, UUID_SOURCE } from '$lib/platform/limits';
import type { VoteChoice } from '$lib/reviews/rubric';
import type { Database } from '../db/client';
import { applicationVotes, applications, reviewAssignments } from '../db/schema';
import { isRealTime } from '$lib/platform/real-time';

/** The two tabs of /review. */
export const REVIEW_TABS = ['queue', 'voted'] as const;
export type ReviewTab = (typeof REVIEW_TABS)[number];

const CURSOR = new RegExp(`^(\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(?:\\.\\d{1,6})?Z)_(${UUID_SOURCE}|\\d{1,18})$`);

export interface ReviewQuery {
	tab: ReviewTab;
	/** Where the page starts: after this (time, id) in the tab's order. */
	after?: { at: string; id: string };
}

/** Reads /review's query string; anything unknown or malformed falls back to the first page of the queue. */
export function parseReviewQuery(params: URLSearchParams): ReviewQuery {
	const tab = params.get('tab') === 'voted' ? 'voted' : 'queue';
	const match = CURSOR.exec(params.get('after') ?? '');
	const at = match?.[1];
	const id = match?.[2];
	const idFits = tab === 'queue' ? id?.includes('-') : !id?.includes('-');
	return at && id && idFits && isRealTime(at) ? { tab, after: { at, id } } : { tab };
}

export interface QueueRow {
	id: string;
	displayName: string;
	applicantAddress: string;
	/** Its programme (#57). */
	programId: number;
	/** ISO time with microseconds: when the application was submitted. */
	createdAt: string;
	/** In the voted tab: the reviewer's current vote and when they cast it. */
	vote?: VoteChoice;
	votedAt?: string;
}

export interface ReviewQueue {
	rows: QueueRow[];
	/** The cursor of the next page, or null. */
	next: string | null;
}

const isoMicros = (column: unknown) =>
	sql<string>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * A reviewer's queue: pending applications they have not voted on (nor their own, nor one assigned to
 * them or declared a conflict on), longest waiting
 * first; or the ones they voted on, most recent vote first, with that vote. One statement a page, read
 * in index order (`applications_review_queue_idx`; `application_votes_reviewer_idx`), so a page costs
 * what the first does however many applications and votes there are.
 */
export async function reviewQueue(
	db: Database,
	reviewer: string,
	query: ReviewQuery,
	pageSize = ADMIN_PAGE_SIZE,
	/** A reviewer of some programmes only (issue 59): their applications alone wait for them. */
	programIds?: readonly number[]
): Promise<ReviewQueue> {
	const rows =
		query.tab === 'queue'
			? await waiting(db, reviewer, query, pageSize, programIds)
			: await voted(db, reviewer, query, pageSize, programIds);
	const more = rows.length > pageSize;
	const page = rows.slice(0, pageSize);
	const last = page.at(-1);
	return { rows: page.map(({ cursor: _c, ...row }) => row), next: more && last ? last.cursor : null };
}

/** The applications of some programmes (issue 59), as SQL; none when `programIds` is absent (every programme). */
const ofPrograms = (programIds?: readonly number[]) =>
	programIds ? [sql`${applications.programId} = any(${`{${programIds.join(',')}}`}::int[])`] : [];

/**
 * Whether any application waits for review at all (one index probe): a new community has none; for a
 * reviewer of some programmes, any of theirs.
 */
export async function anyPending(db: Database, programIds?: readonly number[]): Promise<boolean> {
	const found = await db
		.select({ id: applications.id })
		.from(applications)
		.where(and(eq(applications.review, 'pending'), ...ofPrograms(programIds)))
		.limit(1);
	return found.length > 0;
}

async function waiting(
	db: Database,
	reviewer: string,
	query: ReviewQuery,
	pageSize: number,
	programIds?: readonly number[]
) {
	const where = [
		eq(applications.review, 'pending'),
		ne(applications.applicantAddress, reviewer),
		sql`not exists (select 1 from application_votes as v where v.application_id = "applications"."id" and v.reviewer_address = ${reviewer})`,
		// Assigned ones are listed above the queue; a declared conflict takes an application off it.
		sql`not exists (select 1 from review_assignments as r where r.application_id = "applications"."id" and r.reviewer_address = ${reviewer})`,
		sql`not exists (select 1 from review_conflicts as k where k.application_id = "applications"."id" and k.reviewer_address = ${reviewer})`
	];
	where.push(...ofPrograms(programIds));
	if (query.after)
		where.push(
			sql`(${applications.createdAt}, ${applications.id}) > (${query.after.at}::timestamptz, ${query.after.id}::uuid)`
		);
	const found = await db
		.select({
			id: applications.id,
			displayName: applications.displayName,
			programId: applications.programId,
			applicantAddress: applications.applicantAddress,
			createdAt: isoMicros(applications.createdAt)
		})
		.from(applications)
		.where(and(...where))
		.orderBy(asc(applications.createdAt), asc(applications.id))
		.limit(pageSize + 1);
	return found.map((r) => ({ ...r, cursor: `${r.createdAt}_${r.id}` }));
}

async function voted(
	db: Database,
	reviewer: string,
	query: ReviewQuery,
	pageSize: number,
	programIds?: readonly number[]
) {
	// The reviewer's rows newest first, each kept only if no newer row of theirs on that application exists;
	// for a reviewer of some programmes, only on theirs (votes cast before their scope changed stay unlisted).
	const where = [
		...(programIds
			? [
					sql`exists (select 1 from applications as s where s.id = "application_votes"."application_id"
						and s.program_id = any(${`{${programIds.join(',')}}`}::int[]))`
				]
			: []),
		eq(applicationVotes.reviewerAddress, reviewer),
		sql`not exists (select 1 from application_votes as w where w.application_id = "application_votes"."application_id"
			and w.reviewer_address = "application_votes"."reviewer_address"
			and (w.created_at, w.id) > ("application_votes"."created_at", "application_votes"."id"))`
	];
	if (query.after)
		where.push(
			sql`(${applicationVotes.createdAt}, ${applicationVotes.id}) < (${query.after.at}::timestamptz, ${query.after.id}::bigint)`
		);
	const votes = await db
		.select({
			voteId: applicationVotes.id,
			applicationId: applicationVotes.applicationId,
			vote: applicationVotes.vote,
			votedAt: isoMicros(applicationVotes.createdAt)
		})
		.from(applicationVotes)
		.where(and(...where))
		.orderBy(desc(applicationVotes.createdAt), desc(applicationVotes.id))
		.limit(pageSize + 1);
	if (!votes.length) return [];
	const apps = await db
		.select({
			id: applications.id,
			displayName: applications.displayName,
			programId: applications.programId,
			applicantAddress: applications.applicantAddress,
			createdAt: isoMicros(applications.createdAt)
		})
		.from(applications)
		.where(
			inArray(
				applications.id,
				votes.map((v) => v.applicationId)
			)
		);
	const byId = new Map(apps.map((a) => [a.id, a]));
	return votes.flatMap((v) => {
		const app = byId.get(v.applicationId);
		return app ? [{ ...app, vote: v.vote, votedAt: v.votedAt, cursor: `${v.votedAt}_${v.voteId}` }] : [];
	});
}

/**
 * "Assigned to you": the reviewer's open assignments (pending, no vote of theirs yet), oldest assignment
 * first, at most `limit`; read along `review_assignments_reviewer_idx`, stopping once the page is full. A
 * reviewer of some programmes sees those of their programmes only.
 */
export async function assignedTo(
	db: Database,
	reviewer: string,
	limit = ADMIN_PAGE_SIZE,
	programIds?: readonly number[]
): Promise<QueueRow[]> {
	return db
		.select({
			id: applications.id,
			displayName: applications.displayName,
			programId: applications.programId,
			applicantAddress: applications.applicantAddress,
			createdAt: isoMicros(applications.createdAt)
		})
		.from(reviewAssignments)
		.innerJoin(applications, eq(applications.id, reviewAssignments.applicationId))
		.where(
			and(
				eq(reviewAssignments.reviewerAddress, reviewer),
				eq(applications.review, 'pending'),
				sql`not exists (select 1 from application_votes as v where v.application_id = ${reviewAssignments.applicationId} and v.reviewer_address = ${reviewer})`,
				...ofPrograms(programIds)
			)
		)
		.orderBy(asc(reviewAssignments.assignedAt), asc(reviewAssignments.applicationId))
		.limit(limit);
}
