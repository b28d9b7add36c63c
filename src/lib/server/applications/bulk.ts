import { inArray } from 'drizzle-orm';
import * as v from 'valibot';
import { BULK_MAX, UUID_ANY_CASE } from '$lib/platform/limits';
import { moveEntries, parseMove } from './move-input';
import type { Database } from '../db/client';
import { applications } from '../db/schema';
import { rateLimited, type Outcome } from '../platform/outcome';
import type { SignedInMember } from '../auth/guards';
import { consumeCost } from '../platform/rate-limit';
import type { OutboxTargets } from '../platform/outbox-targets';
import type { RpcEndpoint } from '../platform/endpoints';
import { applyMoves, checkAsks, checkMoves, type BulkApplication } from './moves';
import { m } from '$lib/paraglide/messages';

export type { BulkApplication, BulkConflict, BulkRefusal } from './moves';

/** The fields of `POST /admin?/bulk` (docs/http.md): the single move's, with a list of ids. */
export const BULK_FIELDS = ['applicationIds', 'field', 'to', 'reason', 'txHash', 'from', 'reapplyAfter'] as const;
/** Most applications one bulk move may name (shared with the page: $lib/platform/limits). */
export { BULK_MAX };

// formInput() gives undefined, one value (text or a file) or a list: every entry must be a UUID.
const applicationIds = v.pipe(
	v.optional(
		v.union([v.string(), v.array(v.unknown())], () => m.admin_ids_text()),
		() => []
	),
	v.transform((x): unknown[] => (Array.isArray(x) ? x : [x])),
	v.check(
		(list) => list.length >= 1,
		() => m.admin_select_one()
	),
	v.check(
		(list) => list.length <= BULK_MAX,
		() => m.admin_select_at_most({ count: BULK_MAX })
	),
	v.check(
		(list) => list.every((id) => typeof id === 'string' && UUID_ANY_CASE.test(id)),
		() => m.admin_ids_uuid()
	),
	v.transform((list) => [...new Set((list as string[]).map((id) => id.toLowerCase()))])
);

const bulkSchema = v.object({ applicationIds, ...moveEntries });

export type BulkMove = v.InferOutput<typeof bulkSchema> & { asks: import('$lib/applications/asks').Asks | null };

/** The same validation as a single move (parseMove), with 1 to 100 UUIDs instead of one id. */
export const parseBulk = (input: unknown): Outcome<BulkMove> => parseMove(bulkSchema, input);

const currentColumns = {
	id: applications.id,
	formId: applications.formId,
	displayName: applications.displayName,
	review: applications.review,
	allowlist: applications.allowlist,
	distribution: applications.distribution
};

/**
 * What a bulk move would do, without doing it: the applications by name, or the same 400 / 409 the
 * move itself would answer now (checkMoves). For the confirm step before a final move (one statement).
 */
export async function bulkPreview(db: Database, move: BulkMove): Promise<Outcome<BulkApplication[]>> {
	const rows = await db.select(currentColumns).from(applications).where(inArray(applications.id, move.applicationIds));
	const refused = checkMoves(move, rows) ?? (await checkAsks(db, move, rows));
	if (refused) return refused;
	const byId = new Map(rows.map((r) => [r.id, r]));
	return {
		ok: true,
		value: move.applicationIds.map((id) => ({ id, displayName: byId.get(id)!.displayName }))
	};
}

/**
 * moveInBulk: the same move for every listed application, all or nothing. Order: (validated by
 * parseBulk) → the per-address limit spends one call per application, or nothing when they do not
 * all fit (429) → the move pipeline (applyMoves: tx lookup, lock and check, 409 naming those that
 * cannot, one UPDATE, one audit row each, one outbox write for the batch).
 */
export async function moveInBulk(
	db: Database,
	outbox: OutboxTargets,
	txCheck: RpcEndpoint | null,
	admin: SignedInMember,
	move: BulkMove
): Promise<Outcome<{ count: number; applications: BulkApplication[] }>> {
	const ids = move.applicationIds;
	const limit = await consumeCost(db, admin.address, 'transitionApplication', ids.length);
	if (!limit.ok) {
		const left = Math.max(0, limit.limit - limit.used);
		const refused = rateLimited(limit);
		return {
			...refused,
			message: m.admin_bulk_rate_limited({ message: refused.message, needed: ids.length, count: left })
		};
	}
	const outcome = await applyMoves(db, outbox, admin, move, { txCheck });
	if (!outcome.ok) return outcome;
	const moved = outcome.value.applications;
	return {
		ok: true,
		value: { count: moved.length, applications: moved.map(({ id, displayName }) => ({ id, displayName })) }
	};
}
