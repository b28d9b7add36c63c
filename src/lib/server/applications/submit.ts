import { randomUUID } from 'node:crypto';
import { and, eq, getTableColumns, sql } from 'drizzle-orm';
import { dayText, isoDay } from '$lib/applications/asks';
import * as v from 'valibot';
import { LENGTHS } from '$lib/platform/limits';
import type { Database } from '../db/client';
import { builtOnce } from '../db/prepared';
import { applicationEvents, applications, type Application, type ApplicationEvent } from '../db/schema';
import { textField, validate } from '../platform/forms';
import {
	conflict,
	failureOfDatabaseError,
	invalid,
	memberMissing,
	notFound,
	rateLimited,
	type FailureOf,
	type Outcome
} from '../platform/outcome';
import type { SignedInMember } from '../auth/guards';
import { answersToCurrentForm } from '../forms/answers';
import { currentForm } from '../forms/versions';
import { eligibilityAtSubmission } from '../eligibility/submission';
import { keepRevision } from './history';
import { applyStanding, type ApplyStanding } from './may-apply';
import { consume } from '../platform/rate-limit';
import { assignOnSubmit } from '../reviews/assignment';
import { applicationResubmitted, applicationSubmitted, enqueueWebhookEvent } from '../webhooks/events';
import { readRecipients, recordNotifications, writeNotifications } from '../notifications/record';
import type { OutboxTargets } from '../platform/outbox-targets';
import type { RpcEndpoint } from '../platform/endpoints';
import { NO_ROSTER, type Roster } from '../platform/roster';
import { m } from '$lib/paraglide/messages';
import { applyProgram, nextRoundOf, programBySlug, roundForSubmission, type ProgramStanding } from '../programs/rounds';
import { roundClosedNotice } from '../programs/community-zone';
import { roundsOf } from '../programs/place';
import { maskStaged, stagedColumn } from './staged';
import { deleteDraft } from './drafts';
import { inspectUploads, keptFiles, recordUploads, withKeptUploads, type Upload } from '../files/uploads';
import type { BlobStore } from '../files/store';
import type { Question } from '$lib/forms/questions';

export type { Application, ApplicationEvent };

export const APPLICATION_FIELDS = ['displayName', 'motivation', 'contact'] as const;

export const applicationSchema = v.object({
	displayName: textField(m.field_display_name, LENGTHS.displayName),
	motivation: textField(m.field_motivation, { ...LENGTHS.motivation, multiline: true }),
	contact: textField(m.field_contact, LENGTHS.contact)
});

export type ApplicationInput = v.InferOutput<typeof applicationSchema>;

/** Where a submission goes: a programme's slug (`/apply/<slug>`), or none for the programme `/apply` serves. */
export interface ApplyTarget {
	program?: string | null;
	/** The community's time zone (COMMUNITY_TIME_ZONE), in which a round_closed refusal names the next opening. */
	timeZone?: string;
	/** Where the files of `file` answers go (server/files); required only by a form that asks for files. */
	files?: BlobStore;
	/**
	 * POLYGON_RPC_URL (runtime().chain.polygon), where the form's requirements are checked; required only
	 * by a form with requirements (without it, such a form answers 503, as with no POLYGON_RPC_URL).
	 */
	polygon?: RpcEndpoint | null;
	/** The configured reviewers (runtime().roster), among whom the new application is assigned; none when left out. */
	roster?: Roster;
}

/**
 * The questions of the form a post to `program` answers (null: the programme `/apply` serves; none for an
 * unknown one): what the streaming reader checks each file against as it arrives (files/receive.ts).
 * submitApplication and editApplication read the form again, and check the files against that.
 */
export async function formQuestionsFor(db: Database, program: string | null): Promise<readonly Question[]> {
	const target = program === null ? await applyProgram(db) : await programBySlug(db, program);
	return target ? (await currentForm(db, target.program.id)).questions : [];
}

/**
 * submitApplication: a new application (pending / pending / pending) to the target programme (`/apply/<slug>`;
 * without one, the programme `/apply` serves), in its open round, or, while review is needs_info, a resubmission that replaces the submitted fields
 * and returns review to pending with its own audit row (executor = applicant, reason `resubmitted`),
 * allowed whether or not a round is open. A member has at most one application per programme that is
 * not rejected; a new one while the programme has no open round is a 409 `round_closed`, nothing
 * written; an unknown or archived slug is a 404. Order: limit → programme → round → validate → one transaction, which also writes its webhook event
 * and the applicant's notification for the channels `outbox` has on.
 */
export async function submitApplication(
	db: Database,
	outbox: OutboxTargets,
	member: SignedInMember,
	input: unknown,
	sentAnswers: Readonly<Record<string, unknown>> = {},
	{ program = null, timeZone = 'UTC', files, polygon = null, roster = NO_ROSTER }: ApplyTarget = {}
): Promise<Outcome<{ application: Application; resubmitted: boolean }>> {
	const limit = await consume(db, member.address, 'submitApplication');
	if (!limit.ok) return rateLimited(limit);
	const target = program === null ? await applyProgram(db) : await programBySlug(db, program);
	if (!target && program !== null) return notFound(m.program_unknown());
	if (!target) return await roundClosed(db, null, timeZone);
	const programId = target.program.id;
	// A closed programme refuses a new application before its fields are read (a resubmission still goes).
	// With a round open, the first look at the member's applications is only needed for what the form asks
	// before the transaction (files kept from a resubmission, the order of an eligibility refusal): the
	// transaction reads them again and decides (one statement less on most submissions, issue 60).
	const standingNow = async () => applyStanding(await standingRows(db, member.address, programId));
	const closedNow = target.round ? null : await standingNow();
	if (closedNow?.may === 'apply') return await roundClosed(db, target, timeZone);
	// The built-in fields and the current form's answers are checked together, so every message shows at once.
	const parsed = validate(applicationSchema, input);
	const form = await currentForm(db, programId);
	const before =
		closedNow ??
		(form.eligibility !== null || form.questions.some((q) => q.type === 'file') ? await standingNow() : null);
	// Files (issue 58): checked from their bytes; each `file` answer becomes the ids its files will have. On a
	// resubmission a file question left empty keeps the files already sent, as an edit does.
	const inspected = await inspectUploads(form.questions, sentAnswers);
	const keptFrom =
		before?.may === 'resubmit' && form.questions.some((q) => q.type === 'file') ? before.application : null;
	const sent = !inspected.ok
		? sentAnswers
		: keptFrom
			? keptFiles(form.questions, inspected, keptFrom.answers)
			: inspected.sent;
	const answered = await answersToCurrentForm(db, sent, form);
	if (!parsed.ok || !answered.ok || !inspected.ok) {
		const errors = {
			...(parsed.ok ? {} : parsed.errors),
			...(answered.ok ? {} : answered.errors),
			...(inspected.ok ? {} : inspected.errors)
		};
		return invalid(errors);
	}
	const uploads: Upload[] = inspected.uploads;
	// Eligibility on chain (docs/eligibility.md): read before anything is written, outside any transaction,
	// and only for a submission that can be taken (a member the may-apply rule refuses gets its 409 first).
	let eligibility = null;
	if (form.eligibility !== null) {
		if (before?.may === 'not') return refusal(before);
		const checked = await eligibilityAtSubmission(polygon, form.eligibility, member.address);
		if (!checked.ok) return checked;
		eligibility = checked.value;
	}
	const fields = { ...parsed.value, formId: answered.formId, answers: answered.answers, eligibility };
	// The files' bytes first, then their rows in the transaction; a refusal or a fault removes the bytes again.
	return withKeptUploads(db, files, uploads, () =>
		submitInTransaction(
			db,
			outbox,
			roster,
			member,
			target,
			fields,
			uploads,
			timeZone,
			keptFrom?.id ?? null,
			// Not looked at (null): most likely a new one; the transaction reads the round with the standing.
			before === null || before.may === 'apply'
		)
	);
}

/** submitApplication's one transaction (the files' bytes are already stored: their rows go in with it). */
async function submitInTransaction(
	db: Database,
	outbox: OutboxTargets,
	roster: Roster,
	member: SignedInMember,
	target: ProgramStanding,
	fields: Omit<typeof applications.$inferInsert, 'applicantAddress' | 'programId' | 'roundId'>,
	uploads: readonly Upload[],
	timeZone: string,
	keptFrom: string | null,
	/** The first look found no application in the way: the round is read with the standing. */
	newApplication: boolean
): Promise<Outcome<{ application: Application; resubmitted: boolean }>> {
	const programId = target.program.id;
	try {
		return await db.transaction(async (tx): Promise<Outcome<{ application: Application; resubmitted: boolean }>> => {
			// A new application (as the first look found) reads its standing and its round together: the
			// statements go to the transaction's connection in one write, in this order (issue 60).
			const [rows, opening] = await Promise.all([
				standingRows(tx, member.address, programId),
				keptFrom === null && newApplication ? roundForSubmission(tx, programId) : null
			]);
			const standing = applyStanding(rows);
			if (standing.may === 'not') return refusal(standing);
			// Files kept from the application read first are only ever that application's: if it is no longer
			// the one being resubmitted (withdrawn meanwhile), nothing is written.
			if (keptFrom !== null && (standing.may !== 'resubmit' || standing.application.id !== keptFrom))
				return alreadyActive();
			if (standing.may === 'apply') {
				// "Open" at the moment of writing: a round that closed since the first look refuses it, and a
				// programme archived since is the 404 (an archive under way waits for this one, then counts it).
				const round = opening ?? (await roundForSubmission(tx, programId));
				if (round === 'archived') return notFound(m.program_unknown());
				if (!round) return await roundClosed(tx, target, timeZone);
				// The row's id is chosen here, so that what the new row brings with it goes in the same write as its
				// insert, after it (statements on the transaction's connection run in the order sent; a failed insert
				// fails the rest): the applicant's notification's words read the row, the reviewers' assignment its
				// programme. Then the notification and the webhook event: one write each step (issue 60).
				const id = randomUUID();
				const told = [
					{ recipient: member.address, applicationId: id, change: { kind: 'application.submitted' } }
				] as const;
				const [[application], recipients] = await Promise.all([
					insertApplication(tx, {
						id,
						applicantAddress: member.address,
						programId,
						roundId: round.id,
						...fields,
						// As the columns' encoder writes JSON (a null eligibility stays SQL null).
						answers: JSON.stringify(fields.answers),
						eligibility: fields.eligibility === null ? null : JSON.stringify(fields.eligibility)
					}),
					readRecipients(tx, told),
					assignOnSubmit(tx, roster, id),
					deleteDraft(tx, member.address, programId),
					recordUploads(tx, id, uploads)
				]);
				const place = { program: target.program, round };
				await Promise.all([
					enqueueWebhookEvent(tx, outbox, applicationSubmitted(application!, place)),
					writeNotifications(tx, outbox, told, recipients)
				]);
				return { ok: true, value: { application: application!, resubmitted: false } };
			}
			const active = standing.application;
			const [application] = await tx
				.update(applications)
				.set({ ...fields, review: 'pending', updatedAt: sql`now()` })
				.where(and(eq(applications.id, active.id), eq(applications.review, 'needs_info')))
				.returning();
			if (!application) return alreadyActive();
			await keepRevision(tx, active);
			await tx.insert(applicationEvents).values({
				applicationId: application.id,
				executorAddress: member.address,
				field: 'review',
				fromState: 'needs_info',
				toState: 'pending',
				reason: 'resubmitted'
			});
			const place = (await roundsOf(tx, [application.roundId])).get(application.roundId)!;
			await enqueueWebhookEvent(tx, outbox, applicationResubmitted(application, place));
			await recordNotifications(tx, outbox, [
				{ recipient: member.address, applicationId: application.id, change: { kind: 'application.resubmitted' } }
			]);
			// Topped up to N: reviewers removed or conflicted since are replaced.
			await assignOnSubmit(tx, roster, application.id);
			await deleteDraft(tx, member.address, programId);
			await recordUploads(tx, application.id, uploads);
			return { ok: true, value: { application, resubmitted: true } };
		});
	} catch (err) {
		// The unique index: a parallel submission created the member's active application first.
		return failureOfDatabaseError(err, { unique: alreadyActive(), foreignKey: memberMissing });
	}
}

/** A new application's insert, prepared and built once (db/prepared.ts): every submission runs it. */
const insertApplication = builtOnce('insert_application', (db) =>
	db
		.insert(applications)
		.values({
			id: sql.placeholder('id'),
			applicantAddress: sql.placeholder('applicantAddress'),
			programId: sql.placeholder('programId'),
			roundId: sql.placeholder('roundId'),
			displayName: sql.placeholder('displayName'),
			motivation: sql.placeholder('motivation'),
			contact: sql.placeholder('contact'),
			formId: sql.placeholder('formId'),
			// JSON goes as its text: a placeholder given to the column would turn null into JSON's null.
			answers: sql`${sql.placeholder('answers')}`,
			eligibility: sql`${sql.placeholder('eligibility')}`
		})
		.returning()
);

/** The member's applications to one programme, as the may-apply rule reads them (a member has few). */
// A staged decision reads as the applicant sees it ("in review", applications/staged.ts): a held rejection
// does not let them apply again before the round is released, which would tell them.
// Prepared and built once (db/prepared.ts): each submission reads it twice; one round trip each, not
// two, and its 25 columns not turned into text again each time.
const standingStatement = builtOnce('standing_rows', (db) =>
	db
		.select({ ...getTableColumns(applications), staged: stagedColumn })
		.from(applications)
		.where(
			and(
				eq(applications.applicantAddress, sql.placeholder('address')),
				eq(applications.programId, sql.placeholder('programId'))
			)
		)
);
const standingRows = async (db: Database, address: string, programId: number) =>
	(await standingStatement(db, { address, programId })).map(({ staged, ...row }) => (staged ? maskStaged(row) : row));

/** The 409 of a new application while the programme has no open round, naming its next opening if any. */
async function roundClosed(
	db: Pick<Database, 'select'>,
	target: ProgramStanding | null,
	timeZone: string
): Promise<FailureOf<409>> {
	const next = target ? (target.nextRound ?? (await nextRoundOf(db, target.program.id))) : null;
	return {
		ok: false,
		status: 409,
		code: 'round_closed',
		message: roundClosedNotice(next, timeZone),
		nextOpensAt: next ? next.opensAt.toISOString() : null
	};
}

/** The 409 of a submission the may-apply rule refuses. */
function refusal(standing: Extract<ApplyStanding<unknown>, { may: 'not' }>): FailureOf<409> {
	if (standing.reason === 'active') return alreadyActive();
	const day = isoDay(standing.until);
	return {
		ok: false,
		status: 409,
		code: 'reapply_later',
		message: m.application_reapply_later({ date: dayText(standing.until), day }),
		reapplyAfter: day
	};
}

/** The 409 of a second application while one is under review (its message in the request's locale). */
const alreadyActive = () => conflict(m.application_already_active());
