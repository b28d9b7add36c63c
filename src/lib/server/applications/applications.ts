import { and, asc, eq, ne, sql, type SQL } from 'drizzle-orm';
import * as v from 'valibot';
import { FIELDS, LABELS, STATES, TX_HASH, isState, needsOf, refusal, stateLabel, type Field } from '$lib/transitions';
import type { Database } from '../db/client';
import { sqlState } from '../db/errors';
import {
	applicationEvents,
	applicationRevisions,
	applications,
	type Application,
	type ApplicationEvent
} from '../db/schema';
import {
	fieldError,
	memberMissing,
	rateLimited,
	textField,
	validate,
	type FieldErrors,
	type Outcome
} from '../platform/forms';
import type { SignedInMember } from '../auth/guards';
import { answersToCurrentForm } from '../forms/answers';
import { historyOf, newestFirst, type ApplicationWithHistory } from './history';
import { consume } from '../platform/rate-limit';
import { verifyTxHash } from './tx-verify';
import {
	applicationResubmitted,
	applicationSubmitted,
	applicationTransitioned,
	enqueueWebhookEvent,
	insertAuditWithEvents
} from '../webhooks/events';

export type { Application, ApplicationEvent };

export const APPLICATION_FIELDS = ['displayName', 'motivation', 'contact'] as const;
export const TRANSITION_FIELDS = ['applicationId', 'field', 'to', 'reason', 'txHash', 'from'] as const;

const applicationSchema = v.object({
	displayName: textField('Display name', { min: 1, max: 80 }),
	motivation: textField('Motivation', { min: 1, max: 2000, multiline: true }),
	contact: textField('Contact', { max: 200 })
});

export type ApplicationInput = v.InferOutput<typeof applicationSchema>;

/**
 * submitApplication: a new application (pending / pending / pending), or, while review is
 * needs_info, a resubmission that replaces the submitted fields and returns review to pending with
 * its own audit row (executor = applicant, reason `resubmitted`). A member has at most one
 * application that is not rejected. Order: limit → validate → one transaction.
 */
export async function submitApplication(
	db: Database,
	member: SignedInMember,
	input: unknown,
	sentAnswers: Readonly<Record<string, unknown>> = {}
): Promise<Outcome<{ application: Application; resubmitted: boolean }>> {
	const limit = await consume(db, member.address, 'submitApplication');
	if (!limit.allowed) return rateLimited('applications in 24 hours', limit);
	// The built-in fields and the current form's answers are checked together, so every message shows at once.
	const parsed = validate(applicationSchema, input);
	const answered = await answersToCurrentForm(db, sentAnswers);
	if (!parsed.ok || !answered.ok) {
		const errors = { ...(parsed.ok ? {} : parsed.errors), ...(answered.ok ? {} : answered.errors) };
		return { ok: false, status: 400, message: 'Some fields need attention.', errors };
	}
	const fields = { ...parsed.value, formId: answered.formId, answers: answered.answers };
	try {
		return await db.transaction(async (tx): Promise<Outcome<{ application: Application; resubmitted: boolean }>> => {
			const [active] = await tx
				.select()
				.from(applications)
				.where(and(eq(applications.applicantAddress, member.address), ne(applications.review, 'rejected')))
				.limit(1);
			if (!active) {
				const [application] = await tx
					.insert(applications)
					.values({ applicantAddress: member.address, ...fields })
					.returning();
				await enqueueWebhookEvent(tx, applicationSubmitted(application!));
				return { ok: true, value: { application: application!, resubmitted: false } };
			}
			if (active.review !== 'needs_info') return alreadyActive;
			const [application] = await tx
				.update(applications)
				.set({ ...fields, review: 'pending', updatedAt: sql`now()` })
				.where(and(eq(applications.id, active.id), eq(applications.review, 'needs_info')))
				.returning();
			if (!application) return alreadyActive;
			// The text as it stood before, kept for the admin page; it was submitted at the last resubmission, or at creation.
			await tx.insert(applicationRevisions).values({
				applicationId: active.id,
				displayName: active.displayName,
				motivation: active.motivation,
				contact: active.contact,
				answers: active.answers,
				formId: active.formId,
				submittedAt: sql`coalesce((select max(${applicationRevisions.replacedAt}) from ${applicationRevisions} where ${applicationRevisions.applicationId} = ${active.id}), (select ${applications.createdAt} from ${applications} where ${applications.id} = ${active.id}))`
			});
			await tx.insert(applicationEvents).values({
				applicationId: application.id,
				executorAddress: member.address,
				field: 'review',
				fromState: 'needs_info',
				toState: 'pending',
				reason: 'resubmitted'
			});
			await enqueueWebhookEvent(tx, applicationResubmitted(application));
			return { ok: true, value: { application, resubmitted: true } };
		});
	} catch (err) {
		// 23505: a parallel submission created the member's active application first.
		if (sqlState(err) === '23505') return alreadyActive;
		if (sqlState(err) === '23503') return memberMissing;
		throw err;
	}
}

const alreadyActive = {
	ok: false,
	status: 409,
	message:
		'You already have an application under review. You can change it only when the reviewers ask for more information.'
} as const;

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An application id as a form sends it: a UUID, any case, stored lowercase. */
export const applicationIdField = (label: string) =>
	v.pipe(
		textField(label, { min: 1, max: 36 }),
		v.check((s) => UUID.test(s), `${label} must be a UUID.`),
		v.transform((s) => s.toLowerCase())
	);

/** The move itself (field, to, reason, tx hash, from): one application's or a bulk's. */
export const moveEntries = {
	field: v.pipe(
		textField('Field', { min: 1, max: 20 }),
		v.picklist(FIELDS, 'Field must be review, allowlist or distribution.')
	),
	to: textField('New state', { min: 1, max: 20 }),
	reason: textField('Reason', { max: 500, multiline: true }),
	txHash: v.pipe(
		textField('Transaction hash', { max: 66 }),
		v.check((s) => s === '' || TX_HASH.test(s), 'Transaction hash must be 0x followed by 64 hexadecimal characters.'),
		v.transform((s) => s.toLowerCase())
	),
	/** Optional: the state the admin saw, so a change made meanwhile answers 409 instead of going through. */
	from: textField('Current state', { max: 20 })
};

const transitionSchema = v.object({ applicationId: applicationIdField('Application id'), ...moveEntries });

export type TransitionInput = v.InferOutput<typeof transitionSchema>;
export type MoveInput = Omit<TransitionInput, 'applicationId'>;

/**
 * Validates `schema` (the move's entries and whatever ids it carries) and then what the transitions
 * table needs on top: one set of rules for a single move and a bulk one.
 */
export function parseMove<S extends v.GenericSchema<unknown, MoveInput>>(
	schema: S,
	input: unknown
): Outcome<v.InferOutput<S>> {
	const parsed = validate(schema, input);
	if (!parsed.ok) return parsed;
	const errors = checkTransitionInput(parsed.value);
	if (Object.keys(errors).length) return { ok: false, status: 400, message: 'Some fields need attention.', errors };
	return parsed;
}

/** The checks of transitionApplication without touching anything: for a confirm step before a final move. */
export const parseTransition = (input: unknown): Outcome<TransitionInput> => parseMove(transitionSchema, input);

/** Field-by-field checks the table's needs add to the shape: a state of the field, reason, tx hash. */
function checkTransitionInput(input: MoveInput): FieldErrors {
	const errors: FieldErrors = {};
	const { field, to } = input;
	if (!isState(field, to)) {
		errors.to = `New state must be one of: ${STATES[field].join(', ')}.`;
		return errors;
	}
	if (input.from && !isState(field, input.from))
		errors.from = `Current state must be one of: ${STATES[field].join(', ')}.`;
	const needs = needsOf(field, to);
	if (needs.reason && !input.reason)
		errors.reason = `A reason is needed to move ${LABELS[field].toLowerCase()} to ${stateLabel(to)}.`;
	if (field === 'review' && input.txHash) errors.txHash = 'A review decision takes no transaction hash.';
	else if (needs.txHash && !input.txHash)
		errors.txHash = `The transaction hash of the on-chain step is needed to record ${stateLabel(to)}.`;
	return errors;
}

/**
 * transitionApplication: moves one field of one application as the transitions table permits,
 * and writes its audit row in the same transaction. The UPDATE names the state it leaves, so an
 * admin who moved it first wins and the other gets 409. Order: limit → validate → one transaction.
 */
export async function transitionApplication(
	db: Database,
	admin: SignedInMember,
	input: unknown
): Promise<Outcome<{ application: Application; event: ApplicationEvent }>> {
	const limit = await consume(db, admin.address, 'transitionApplication');
	if (!limit.allowed) return rateLimited('state changes in an hour', limit);
	const parsed = parseMove(transitionSchema, input);
	if (!parsed.ok) return parsed;
	const move = parsed.value;
	const { applicationId, field, to } = move;
	// On chain before the transaction, never inside it: a slow endpoint must not hold a transaction open.
	let txVerified: true | null = null;
	if (needsOf(field, to).txHash && move.txHash) {
		const check = await verifyTxHash(move.txHash);
		if (!check.ok) return fieldError('txHash', check.message);
		txVerified = check.verified;
	}

	return db.transaction(async (tx): Promise<Outcome<{ application: Application; event: ApplicationEvent }>> => {
		const [current] = await tx.select().from(applications).where(eq(applications.id, applicationId)).limit(1);
		if (!current) return fieldError('applicationId', 'No application has this id.');
		const from = current[field];
		if (move.from && move.from !== from) return stale(field, from);
		const why = refusal(current, field, to);
		if (why) return { ok: false, status: 409, message: why };

		const column = applications[field];
		const where: SQL[] = [eq(applications.id, applicationId), eq(column, from)];
		if (field !== 'review') where.push(eq(applications.review, 'approved'));
		const [application] = await tx
			.update(applications)
			.set({ [field]: to, updatedAt: sql`now()` })
			.where(and(...where))
			.returning();
		if (!application) {
			const [now] = await tx.select({ state: column }).from(applications).where(eq(applications.id, applicationId));
			return stale(field, now?.state ?? from);
		}
		const audit = {
			applicationId,
			executorAddress: admin.address,
			field,
			fromState: from,
			toState: to,
			reason: move.reason || null,
			txHash: move.txHash || null,
			txVerified
		};
		const [event] = await insertAuditWithEvents(tx, [audit], [applicationTransitioned(application, audit)]);
		return { ok: true, value: { application, event: event! } };
	});
}

export const stale = (field: Field, now: string) =>
	({
		ok: false,
		status: 409,
		message: `${LABELS[field]} was changed meanwhile and is now ${stateLabel(now)}. Reload to see the current state.`
	}) as const;

/** A member's applications, newest first, each with its audit history (two queries). */
export async function applicationsOf(db: Database, address: string): Promise<ApplicationWithHistory[]> {
	const rows = await db
		.select()
		.from(applications)
		.where(eq(applications.applicantAddress, address.toLowerCase()))
		.orderBy(newestFirst, asc(applications.id));
	const history = await historyOf(
		db,
		rows.map((r) => r.id)
	);
	return rows.map((r) => ({ ...r, events: history.get(r.id) ?? [] }));
}
