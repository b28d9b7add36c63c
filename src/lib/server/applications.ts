import { and, asc, eq, getTableColumns, inArray, like, ne, sql, type SQL } from 'drizzle-orm';
import type { PgUpdateSetSource } from 'drizzle-orm/pg-core';
import * as v from 'valibot';
import {
	ALLOWLIST_STATES,
	DISTRIBUTION_STATES,
	FIELDS,
	LABELS,
	REVIEW_STATES,
	TX_HASH,
	isState,
	needsOf,
	refusal,
	stateLabel,
	type Field
} from '$lib/transitions';
import type { Database } from './db/client';
import { sqlState } from './db/errors';
import { applicationEvents, applications, type Application, type ApplicationEvent } from './db/schema';
import { fieldError, rateLimited, textField, validate, type FieldErrors, type Outcome } from './forms';
import type { SignedInMember } from './guards';
import { consume } from './rate-limit';

export type { Application, ApplicationEvent };

export interface ApplicationWithHistory extends Application {
	/** Its audit rows, oldest first. */
	events: ApplicationEvent[];
}

export const APPLICATION_FIELDS = ['displayName', 'motivation', 'contact'] as const;
export const TRANSITION_FIELDS = ['applicationId', 'field', 'to', 'reason', 'txHash', 'from'] as const;

const applicationSchema = v.object({
	displayName: textField('Display name', { min: 1, max: 80 }),
	motivation: textField('Motivation', { min: 1, max: 2000, multiline: true }),
	contact: textField('Contact', { max: 200 })
});

export type ApplicationInput = v.InferOutput<typeof applicationSchema>;

// A session whose member row is gone (e.g. a reset database) cannot write: it must sign in again.
const memberMissing = {
	ok: false,
	status: 401,
	message: 'Your sign-in is no longer on record. Sign in again.'
} as const;

/**
 * submitApplication: a new application (pending / pending / pending), or, while review is
 * needs_info, a resubmission that replaces the submitted fields and returns review to pending with
 * its own audit row (executor = applicant, reason `resubmitted`). A member has at most one
 * application that is not rejected. Order: limit → validate → one transaction.
 */
export async function submitApplication(
	db: Database,
	member: SignedInMember,
	input: unknown
): Promise<Outcome<{ application: Application; resubmitted: boolean }>> {
	const limit = await consume(db, member.address, 'submitApplication');
	if (!limit.allowed) return rateLimited('applications in 24 hours', limit);
	const parsed = validate(applicationSchema, input);
	if (!parsed.ok) return parsed;
	const fields = parsed.value;
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
				return { ok: true, value: { application: application!, resubmitted: false } };
			}
			if (active.review !== 'needs_info') return alreadyActive;
			const [application] = await tx
				.update(applications)
				.set({ ...fields, review: 'pending', updatedAt: sql`now()` })
				.where(and(eq(applications.id, active.id), eq(applications.review, 'needs_info')))
				.returning();
			if (!application) return alreadyActive;
			await tx.insert(applicationEvents).values({
				applicationId: application.id,
				executorAddress: member.address,
				field: 'review',
				fromState: 'needs_info',
				toState: 'pending',
				reason: 'resubmitted'
			});
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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const transitionSchema = v.object({
	applicationId: v.pipe(
		textField('Application id', { min: 1, max: 36 }),
		v.check((s) => UUID.test(s), 'Application id must be a UUID.'),
		v.transform((s) => s.toLowerCase())
	),
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
});

export type TransitionInput = v.InferOutput<typeof transitionSchema>;

/** Field-by-field checks the table's needs add to the shape: a state of the field, reason, tx hash. */
function checkTransitionInput(input: TransitionInput): FieldErrors {
	const errors: FieldErrors = {};
	const { field, to } = input;
	if (!isState(field, to)) {
		errors.to = `New state must be one of: ${STATES_OF[field].join(', ')}.`;
		return errors;
	}
	if (input.from && !isState(field, input.from))
		errors.from = `Current state must be one of: ${STATES_OF[field].join(', ')}.`;
	const needs = needsOf(field, to);
	if (needs.reason && !input.reason)
		errors.reason = `A reason is needed to move ${LABELS[field].toLowerCase()} to ${stateLabel(to)}.`;
	if (field === 'review' && input.txHash) errors.txHash = 'A review decision takes no transaction hash.';
	else if (needs.txHash && !input.txHash)
		errors.txHash = `The transaction hash of the on-chain step is needed to record ${stateLabel(to)}.`;
	return errors;
}

const STATES_OF: Record<Field, readonly string[]> = {
	review: REVIEW_STATES,
	allowlist: ALLOWLIST_STATES,
	distribution: DISTRIBUTION_STATES
};

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
	const parsed = validate(transitionSchema, input);
	if (!parsed.ok) return parsed;
	const move = parsed.value;
	const errors = checkTransitionInput(move);
	if (Object.keys(errors).length) return { ok: false, status: 400, message: 'Some fields need attention.', errors };
	const { applicationId, field, to } = move;

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
			.set({ [field]: to, updatedAt: sql`now()` } as PgUpdateSetSource<typeof applications>)
			.where(and(...where))
			.returning();
		if (!application) {
			const [now] = await tx.select({ state: column }).from(applications).where(eq(applications.id, applicationId));
			return stale(field, now?.state ?? from);
		}
		const [event] = await tx
			.insert(applicationEvents)
			.values({
				applicationId,
				executorAddress: admin.address,
				field,
				fromState: from,
				toState: to,
				reason: move.reason || null,
				txHash: move.txHash || null
			})
			.returning();
		return { ok: true, value: { application, event: event! } };
	});
}

const stale = (field: Field, now: string) =>
	({
		ok: false,
		status: 409,
		message: `${LABELS[field]} was changed meanwhile and is now ${stateLabel(now)}. Reload to see the current state.`
	}) as const;

/** The audit rows of `ids`, oldest first, in one query. */
export async function historyOf(db: Database, ids: string[]): Promise<Map<string, ApplicationEvent[]>> {
	const history = new Map<string, ApplicationEvent[]>(ids.map((id) => [id, []]));
	if (ids.length === 0) return history;
	const rows = await db
		.select()
		.from(applicationEvents)
		.where(inArray(applicationEvents.applicationId, ids))
		.orderBy(asc(applicationEvents.applicationId), asc(applicationEvents.id));
	for (const row of rows) history.get(row.applicationId)?.push(row);
	return history;
}

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

export const PAGE_SIZE = 20;

// Spelled as the index is (created_at DESC NULLS LAST), so that the planner walks it instead of sorting.
const newestFirst = sql`${applications.createdAt} desc nulls last`;

const filterState = <T extends readonly string[]>(states: T) => v.fallback(v.optional(v.picklist(states)), undefined);

/** The /admin list's query string: filters by each state, an address (or part of one), a page. */
const adminQuerySchema = v.object({
	review: filterState(REVIEW_STATES),
	allowlist: filterState(ALLOWLIST_STATES),
	distribution: filterState(DISTRIBUTION_STATES),
	address: v.fallback(
		v.optional(v.pipe(v.string(), v.trim(), v.toLowerCase(), v.regex(/^(0x)?[0-9a-f]{0,40}$/))),
		undefined
	),
	page: v.fallback(
		v.pipe(v.optional(v.string(), '1'), v.transform(Number), v.integer(), v.minValue(1), v.maxValue(1_000_000)),
		1
	)
});

export type AdminQuery = v.InferOutput<typeof adminQuerySchema>;

/** Reads the list's query string; unknown values fall back to "any" and page 1. */
export function parseAdminQuery(params: URLSearchParams): AdminQuery & { invalidAddress: boolean } {
	const raw = Object.fromEntries(
		['review', 'allowlist', 'distribution', 'address', 'page']
			.map((k) => [k, params.get(k) ?? undefined] as const)
			.filter(([, value]) => value !== undefined && value !== '')
	);
	const query = v.parse(adminQuerySchema, raw);
	return { ...query, invalidAddress: raw.address !== undefined && query.address === undefined };
}

export interface ApplicationList {
	items: ApplicationWithHistory[];
	total: number;
	page: number;
	pageSize: number;
	pages: number;
}

/**
 * One page of applications for /admin, newest first, with their audit histories: two statements
 * whatever the page size (the page, carrying its total from an uncorrelated sub-select that runs
 * once; then every page row's history at once). The order and limit come from the created_at index.
 */
export async function listApplications(
	db: Database,
	query: AdminQuery,
	pageSize = PAGE_SIZE
): Promise<ApplicationList> {
	const where: SQL[] = [];
	if (query.review) where.push(eq(applications.review, query.review));
	if (query.allowlist) where.push(eq(applications.allowlist, query.allowlist));
	if (query.distribution) where.push(eq(applications.distribution, query.distribution));
	const address = query.address?.replace(/^0x/, '');
	if (address) where.push(like(applications.applicantAddress, `%${address}%`));
	const filter = where.length ? and(...where) : undefined;
	const rows = await db
		.select({
			...getTableColumns(applications),
			total: sql<number>`(select count(*) from ${applications}${filter ? sql` where ${filter}` : sql``})`.mapWith(
				Number
			)
		})
		.from(applications)
		.where(filter)
		.orderBy(newestFirst, asc(applications.id))
		.limit(pageSize)
		.offset((query.page - 1) * pageSize);
	// Past the last page there is no row to carry the total; only then is it counted on its own.
	const total = rows[0]?.total ?? (query.page > 1 ? await countApplications(db, filter) : 0);
	const history = await historyOf(
		db,
		rows.map((r) => r.id)
	);
	return {
		items: rows.map(({ total: _, ...r }) => ({ ...r, events: history.get(r.id) ?? [] })),
		total,
		page: query.page,
		pageSize,
		pages: Math.max(1, Math.ceil(total / pageSize))
	};
}

async function countApplications(db: Database, filter: SQL | undefined): Promise<number> {
	const [row] = await db
		.select({ n: sql<number>`count(*)`.mapWith(Number) })
		.from(applications)
		.where(filter);
	return row?.n ?? 0;
}

/** Approved applications whose allowlist step is still pending, oldest first: the manual on-chain list. */
export async function pendingAllowlist(db: Database): Promise<Application[]> {
	return db
		.select()
		.from(applications)
		.where(and(eq(applications.review, 'approved'), eq(applications.allowlist, 'pending')))
		.orderBy(asc(applications.createdAt), asc(applications.id));
}

/** RFC 4180 CSV of `pendingAllowlist`; cells that a spreadsheet would run as a formula are defused. */
export function allowlistCsv(rows: Application[]): string {
	const cell = (value: string) => {
		const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
		return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
	};
	const lines = [['address', 'display_name', 'contact', 'application_id', 'applied_at'].join(',')];
	for (const r of rows) {
		lines.push([r.applicantAddress, r.displayName, r.contact, r.id, r.createdAt.toISOString()].map(cell).join(','));
	}
	return lines.join('\r\n') + '\r\n';
}
