import { inArray, sql } from 'drizzle-orm';
import * as v from 'valibot';
import { LABELS, actionLabel, needsOf, refusal, stateLabel, type ApplicationStates } from '$lib/transitions';
import { UUID, moveEntries, parseMove } from './applications';
import type { Database } from '../db/client';
import { applications } from '../db/schema';
import { fieldError, rateLimited, type Outcome, type Refusal } from '../platform/forms';
import type { SignedInMember } from '../auth/guards';
import { consumeCost } from '../platform/rate-limit';
import { verifyTxHash } from './tx-verify';
import { applicationTransitioned, insertAuditWithEvents } from '../webhooks/events';

/** The fields of `POST /admin?/bulk` (docs/http.md): the single move's, with a list of ids. */
export const BULK_FIELDS = ['applicationIds', 'field', 'to', 'reason', 'txHash', 'from'] as const;
/** Most applications one bulk move may name. */
export const BULK_MAX = 100;

// formInput() gives undefined, one value (text or a file) or a list: every entry must be a UUID.
const applicationIds = v.pipe(
	v.optional(v.union([v.string(), v.array(v.unknown())], 'Application ids must be text.'), () => []),
	v.transform((x): unknown[] => (Array.isArray(x) ? x : [x])),
	v.check((list) => list.length >= 1, 'Select at least one application.'),
	v.check((list) => list.length <= BULK_MAX, `Select at most ${BULK_MAX} applications at once.`),
	v.check(
		(list) => list.every((id) => typeof id === 'string' && UUID.test(id)),
		'Every application id must be a UUID.'
	),
	v.transform((list) => [...new Set((list as string[]).map((id) => id.toLowerCase()))])
);

const bulkSchema = v.object({ applicationIds, ...moveEntries });

export type BulkMove = v.InferOutput<typeof bulkSchema>;

/** One application of a bulk, by the name the admin knows it by. */
export interface BulkApplication {
	id: string;
	displayName: string;
}

/** One that cannot make the move, and why (the transitions table's own words). */
export interface BulkRefusal extends BulkApplication {
	why: string;
}

export interface BulkConflict {
	ok: false;
	status: 409;
	message: string;
	refused: BulkRefusal[];
}

/** The same validation as a single transition (parseMove), with 1 to 100 UUIDs instead of one id. */
export const parseBulk = (input: unknown): Outcome<BulkMove> => parseMove(bulkSchema, input);

type Current = BulkApplication & ApplicationStates;

const currentColumns = {
	id: applications.id,
	displayName: applications.displayName,
	review: applications.review,
	allowlist: applications.allowlist,
	distribution: applications.distribution
};

/** 400 when an id names no application; 409 naming every application that cannot make the move. */
function check(move: BulkMove, rows: Current[]): Extract<Refusal, { status: 400 }> | BulkConflict | null {
	const found = new Map(rows.map((r) => [r.id, r]));
	const missing = move.applicationIds.filter((id) => !found.has(id));
	if (missing.length)
		return fieldError('applicationIds', `No application has the id ${missing.join(', ')}. Nothing was changed.`);
	const refused: BulkRefusal[] = [];
	for (const id of move.applicationIds) {
		const row = found.get(id)!;
		const now = row[move.field];
		const why =
			move.from && move.from !== now
				? `${LABELS[move.field]} is now ${stateLabel(now)}.`
				: refusal(row, move.field, move.to);
		if (why) refused.push({ id, displayName: row.displayName, why });
	}
	if (!refused.length) return null;
	const n = move.applicationIds.length;
	const list = refused.map((r) => `${r.displayName} (${r.why.replace(/\.$/, '')})`).join('; ');
	return {
		ok: false,
		status: 409,
		message: `Nothing was changed: ${refused.length} of the ${n} selected application${n === 1 ? '' : 's'} cannot take “${actionLabel(move.field, move.to)}”: ${list}.`,
		refused
	};
}

/**
 * What a bulk move would do, without doing it: the applications by name, or the same 400 / 409 the
 * move itself would answer now. For the confirm step before a final move (one statement).
 */
export async function bulkPreview(db: Database, move: BulkMove): Promise<Outcome<BulkApplication[]> | BulkConflict> {
	const rows = await db.select(currentColumns).from(applications).where(inArray(applications.id, move.applicationIds));
	const refused = check(move, rows);
	if (refused) return refused;
	const byId = new Map(rows.map((r) => [r.id, r]));
	return {
		ok: true,
		value: move.applicationIds.map((id) => ({ id, displayName: byId.get(id)!.displayName }))
	};
}

/**
 * bulkTransition: the same move for every listed application, all or nothing. Order: (validated by
 * parseBulk) → the per-address limit spends one call per application, or nothing when they do not
 * all fit (429) → one transaction: lock the rows, check each against the transitions table (409
 * naming those that cannot), one UPDATE, one audit row each, one outbox write for the batch.
 */
export async function bulkTransition(
	db: Database,
	admin: SignedInMember,
	move: BulkMove
): Promise<Outcome<{ count: number; applications: BulkApplication[] }> | BulkConflict> {
	const ids = move.applicationIds;
	const limit = await consumeCost(db, admin.address, 'transitionApplication', ids.length);
	if (!limit.allowed) {
		const left = Math.max(0, limit.limit - limit.used);
		const refused = rateLimited('state changes in an hour', limit);
		return {
			...refused,
			message: `${refused.message} This move needs ${ids.length} of them; ${left} ${left === 1 ? 'is' : 'are'} left. Nothing was changed.`
		};
	}
	// The batch's one transaction hash (one on-chain transaction for all of them), as recorded on every
	// audit row, looked up on chain once and before the transaction, as a single move does (tx-verify.ts).
	const txHash = move.txHash || null;
	const { field, to } = move;
	let txVerified: true | null = null;
	if (needsOf(field, to).txHash && txHash) {
		const checked = await verifyTxHash(txHash);
		if (!checked.ok) return fieldError('txHash', checked.message);
		txVerified = checked.verified;
	}

	return db.transaction(async (tx) => {
		// FOR UPDATE: nobody moves these between the check and the UPDATE.
		const rows = await tx.select(currentColumns).from(applications).where(inArray(applications.id, ids)).for('update');
		const refused = check(move, rows);
		if (refused) return refused;
		const before = new Map(rows.map((r) => [r.id, r[field]]));
		const moved = await tx
			.update(applications)
			.set({ [field]: to, updatedAt: sql`now()` })
			.where(inArray(applications.id, ids))
			.returning();
		const audits = moved.map((application) => ({
			applicationId: application.id,
			executorAddress: admin.address,
			field,
			fromState: before.get(application.id)!,
			toState: to,
			reason: move.reason || null,
			txHash,
			txVerified
		}));
		// One statement: the audit rows, and the batch's outbox rows in its WITH clause.
		await insertAuditWithEvents(
			tx,
			audits,
			moved.map((application, i) => applicationTransitioned(application, audits[i]!))
		);
		const byId = new Map(rows.map((r) => [r.id, r.displayName]));
		return {
			ok: true,
			value: { count: moved.length, applications: ids.map((id) => ({ id, displayName: byId.get(id)! })) }
		};
	});
}
