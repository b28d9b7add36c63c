import { and, eq, sql } from 'drizzle-orm';
import * as v from 'valibot';
import { LENGTHS } from '$lib/platform/limits';
import { m } from '$lib/paraglide/messages';
import type { Database } from '../db/client';
import { applicationEvents, applications, webhookDeliveries, notifications } from '../db/schema';
import type { Application } from '../db/schema';
import { textField, validate } from '../platform/forms';
import { invalid, notFound, rateLimited, type FailureOf, type Outcome } from '../platform/outcome';
import { consume } from '../platform/rate-limit';
import type { SignedInMember } from '../auth/guards';
import { answersToCurrentForm } from '../forms/answers';
import { currentForm } from '../forms/versions';
import { applyProgram, programBySlug } from '../programs/rounds';
import { roundsOf } from '../programs/place';
import { applicationWithdrawn, enqueueWebhookEvent, type WebhookTargets } from '../webhooks/events';
import { recordNotifications, type NotificationTargets } from '../notifications/record';
import { dropApplicationFiles } from '../files/access';
import { applicationSchema } from './submit';
import type { BlobStore } from '../files/store';
import { inspectUploads, keptFiles, recordUploads, removeUnreferenced, withKeptUploads } from '../files/uploads';
import { stagedColumn } from './staged';
import { keepRevision } from './history';

/**
 * The applicant's own application (issue 58, docs/application-form.md "Editing and withdrawing"):
 * editing it before anyone reviewed it (`?/edit`), and withdrawing it (`?/withdraw`). Both act on the
 * member's live application to one programme (the one `/apply/<slug>` or `/apply` shows).
 */

/** Why an application may not be edited now; null when it may. */
export type EditLock = 'none' | 'state' | 'voted' | 'moved' | 'round_closed';

/** What decides whether the applicant may edit, read in one statement (`factColumns` here, or with the applications: record.ts). */
interface EditFacts {
	review: string;
	staged: boolean;
	voted: boolean;
	moved: boolean;
	roundOpen: boolean;
}

/** The rule, in one place: pending (not staged), nobody voted, nobody moved it, its round open. */
export function editLock(facts: EditFacts | null): EditLock | null {
	if (!facts) return 'none';
	if (facts.review !== 'pending' || facts.staged) return 'state';
	if (facts.voted) return 'voted';
	if (facts.moved) return 'moved';
	if (!facts.roundOpen) return 'round_closed';
	return null;
}

/** The page's sentence for a lock. */
export const lockWords = (lock: EditLock): string =>
	({
		none: m.apply_locked_none,
		state: m.apply_locked_state,
		voted: m.apply_locked_voted,
		moved: m.apply_locked_moved,
		round_closed: m.apply_locked_round_closed
	})[lock]();

// An audit row that is an edit: the applicant's own, not a move.
const EDIT_REASON = 'edited';

/** Whether an audit row moved the application (anything but the applicant's own edit): the `moved` fact. */
export const isMove = (e: { field: string; fromState: string; toState: string; reason: string | null }) =>
	!(e.field === 'review' && e.fromState === 'pending' && e.toState === 'pending' && e.reason === EDIT_REASON);

/** The review states of a live application (one per programme and member: drizzle/0026). */
export const LIVE_REVIEW_STATES: readonly string[] = ['pending', 'needs_info', 'approved'];

const factColumns = {
	review: applications.review,
	staged: stagedColumn,
	voted: sql<boolean>`exists (select 1 from application_votes v where v.application_id = applications.id)`.mapWith(
		(x: unknown) => x === true || x === 't'
	),
	moved: sql<boolean>`exists (select 1 from application_events e where e.application_id = applications.id
		and not (e.field = 'review' and e.from_state = 'pending' and e.to_state = 'pending' and e.reason = ${EDIT_REASON}))`.mapWith(
		(x: unknown) => x === true || x === 't'
	),
	roundOpen: sql<boolean>`exists (select 1 from rounds r where r.id = applications.round_id
		and r.opens_at <= now() and (r.closes_at is null or r.closes_at > now()))`.mapWith(
		(x: unknown) => x === true || x === 't'
	)
};

/** The member's live application to the programme (neither rejected nor withdrawn) with its edit facts, or null. */
async function liveOf(db: Pick<Database, 'select'>, address: string, programId: number, lock = false) {
	const query = db
		.select({ application: applications, ...factColumns })
		.from(applications)
		.where(
			and(
				eq(applications.applicantAddress, address),
				eq(applications.programId, programId),
				sql`${applications.review} in ('pending', 'needs_info', 'approved')`
			)
		)
		.limit(1);
	const [row] = await (lock ? query.for('update', { of: applications }) : query);
	return row ?? null;
}

/** The programme a post to `/apply` (null) or `/apply/<slug>` acts on, or null when none. */
async function programOf(db: Database, slug: string | null) {
	const target = slug === null ? await applyProgram(db) : await programBySlug(db, slug);
	return target?.program ?? null;
}

const locked = (why: EditLock): FailureOf<409> => ({ ok: false, status: 409, code: 'locked', message: lockWords(why) });

/**
 * editApplication: replaces the member's pending application to the programme with the posted fields
 * (checked as a submission's), while nobody voted or moved it and its round is open: a revision row
 * (the text before), an audit row (`review` pending → pending, reason `edited`, the applicant as
 * executor). Otherwise 409 `locked` saying why. Files (`files`, the store): a `file` question given new
 * files has them instead (checked and stored as a submission's); one left empty keeps the files it had
 * (their rows stay, for the revision). Order: limit → validate → put new bytes → one transaction (rechecks).
 */
export async function editApplication(
	db: Database,
	member: SignedInMember,
	slug: string | null,
	input: unknown,
	sentAnswers: Readonly<Record<string, unknown>>,
	files?: BlobStore
): Promise<Outcome<{ application: Application }>> {
	const limit = await consume(db, member.address, 'editApplication');
	if (!limit.ok) return rateLimited(limit);
	const program = await programOf(db, slug);
	if (!program) return notFound(m.program_unknown());
	const current = await liveOf(db, member.address, program.id);
	const why = editLock(current);
	if (why) return locked(why);
	const parsed = validate(applicationSchema, input);
	const form = await currentForm(db, program.id);
	// Files (issue 58): new ones checked from their bytes; a file question left empty keeps its files.
	const inspected = await inspectUploads(form.questions, sentAnswers);
	const sent = inspected.ok ? keptFiles(form.questions, inspected, current!.application.answers) : sentAnswers;
	const answered = await answersToCurrentForm(db, sent, form);
	if (!parsed.ok || !answered.ok || !inspected.ok)
		return invalid({
			...(parsed.ok ? {} : parsed.errors),
			...(answered.ok ? {} : answered.errors),
			...(inspected.ok ? {} : inspected.errors)
		});
	const uploads = inspected.uploads;
	return withKeptUploads(db, files, uploads, () =>
		editInTransaction(db, member, program.id, parsed.value, answered, uploads)
	);
}

/** editApplication's one transaction: the lock rechecked on the locked row, the new files' rows with it. */
async function editInTransaction(
	db: Database,
	member: SignedInMember,
	programId: number,
	fields: v.InferOutput<typeof applicationSchema>,
	answered: { formId: number | null; answers: Application['answers'] },
	uploads: Parameters<typeof recordUploads>[2]
): Promise<Outcome<{ application: Application }>> {
	return db.transaction(async (tx): Promise<Outcome<{ application: Application }>> => {
		const live = await liveOf(tx, member.address, programId, true);
		const stillWhy = editLock(live);
		if (stillWhy || !live) return locked(stillWhy ?? 'none');
		const before = live.application;
		const [application] = await tx
			.update(applications)
			.set({ ...fields, formId: answered.formId, answers: answered.answers, updatedAt: sql`now()` })
			.where(eq(applications.id, before.id))
			.returning();
		await recordUploads(tx, before.id, uploads);
		await keepRevision(tx, before);
		await tx.insert(applicationEvents).values({
			applicationId: before.id,
			executorAddress: member.address,
			field: 'review',
			fromState: 'pending',
			toState: 'pending',
			reason: EDIT_REASON
		});
		return { ok: true, value: { application: application! } };
	});
}

const withdrawSchema = v.object({ reason: textField(m.apply_withdraw_reason_label, LENGTHS.reason) });

/** Whether the applicant sees the review as still open (a staged decision reads as pending). */
const withdrawable = (row: { application: Pick<Application, 'review'>; staged: boolean }) =>
	row.staged || row.application.review === 'pending' || row.application.review === 'needs_info';

/**
 * withdrawApplication: the member's live application to the programme, while its review reads pending or
 * needs_info to them (a decision staged for its round's release counts as pending: its held messages are
 * dropped), becomes `withdrawn` (terminal): an audit row with the applicant as executor and the reason
 * (0–500 characters, none when empty), the `application.withdrawn` webhook. The member may apply to
 * the programme again at once. A second withdrawal, or one after a decision: 409. Its files go with it:
 * the rows in the same transaction (`/files/<id>` is then the unknown path), the bytes no other row
 * references once it has committed; a store that fails to remove them is logged and never fails the
 * withdrawal (files/README.md "Removal").
 */
export async function withdrawApplication(
	db: Database,
	outbox: WebhookTargets & NotificationTargets,
	store: BlobStore,
	member: SignedInMember,
	slug: string | null,
	input: unknown
): Promise<Outcome<{ application: Application }>> {
	const limit = await consume(db, member.address, 'withdrawApplication');
	if (!limit.ok) return rateLimited(limit);
	const program = await programOf(db, slug);
	if (!program) return notFound(m.program_unknown());
	const parsed = validate(withdrawSchema, input);
	if (!parsed.ok) return invalid(parsed.errors);
	const reason = parsed.value.reason || null;
	let hashes: string[] = [];
	const outcome = await db.transaction(async (tx): Promise<Outcome<{ application: Application }>> => {
		const live = await liveOf(tx, member.address, program.id, true);
		if (!live || !withdrawable(live)) return notWithdrawable();
		const before = live.application;
		const [application] = await tx
			.update(applications)
			.set({ review: 'withdrawn', updatedAt: sql`now()` })
			.where(eq(applications.id, before.id))
			.returning();
		const [event] = await tx
			.insert(applicationEvents)
			.values({
				applicationId: before.id,
				executorAddress: member.address,
				field: 'review',
				fromState: before.review,
				toState: 'withdrawn',
				reason
			})
			.returning();
		if (live.staged) await dropHeld(tx, before.id);
		hashes = await dropApplicationFiles(tx, before.id);
		const place = (await roundsOf(tx, [application!.roundId])).get(application!.roundId)!;
		await enqueueWebhookEvent(tx, outbox, applicationWithdrawn(application!, event!, place));
		// The applicant's confirmation (the `application.withdrawn` message), as a submission has one.
		await recordNotifications(tx, outbox, [
			{
				recipient: member.address,
				applicationId: before.id,
				change: { kind: 'application.transitioned', field: 'review', to: 'withdrawn' }
			}
		]);
		return { ok: true, value: { application: application! } };
	});
	if (outcome.ok) await removeUnreferenced(db, store, hashes);
	return outcome;
}

const notWithdrawable = (): FailureOf<409> => ({
	ok: false,
	status: 409,
	code: 'conflict',
	message: m.apply_withdraw_refused()
});

/** A staged decision's held messages (webhook, inbox, push, e-mail): dropped, so the release never tells of a withdrawn application. */
async function dropHeld(tx: Pick<Database, 'delete'>, applicationId: string) {
	await tx.delete(webhookDeliveries).where(
		sql`${webhookDeliveries.heldRoundId} is not null and (${webhookDeliveries.data}->>'applicationId' = ${applicationId}
				or ${webhookDeliveries.data}->>'notificationId' in (select n.id::text from ${notifications} n
					where n.application_id = ${applicationId} and n.held_round_id is not null))`
	);
	await tx
		.delete(notifications)
		.where(and(eq(notifications.applicationId, applicationId), sql`${notifications.heldRoundId} is not null`));
}
