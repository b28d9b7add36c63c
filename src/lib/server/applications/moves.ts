import { inArray, sql } from 'drizzle-orm';
import { needsOf, type ApplicationStates, type Field } from '$lib/applications/transitions';
import { actionName, fieldName, moveRefusal, stateName } from '$lib/applications/admin-words';
import { m } from '$lib/paraglide/messages';
import type { Database } from '../db/client';
import { applications, type Application, type ApplicationEvent } from '../db/schema';
import { conflict, fieldError, rateLimited, type FailureOf, type Outcome, type RefusedItem } from '../platform/outcome';
import { consume } from '../platform/rate-limit';
import type { SignedInMember } from '../auth/guards';
import { parseSingleMove } from './move-input';
import { BUILT_IN_FIELDS, isBuiltIn, parseReapplyAfter, type Asks } from '$lib/applications/asks';
import { formVersions } from '../forms/versions';
import { unknownAsks } from '../reviews/asks-input';
import { verifyTxHash } from './tx-verify';
import { applicationTransitioned, insertAuditWithEvents } from '../webhooks/events';
import { recordNotifications } from '../notifications/record';
import type { OutboxTargets } from '../platform/outbox-targets';
import type { RpcEndpoint } from '../platform/endpoints';
import { heldFor, roundsOf } from '../programs/place';

/** One move (one field to one state, with its reason and tx hash) for one or more applications. */
export interface Moves {
	applicationIds: readonly string[];
	field: Field;
	to: string;
	/** '' when none: stored as null. */
	reason: string;
	/** The on-chain step's transaction hash (0x + 64 hex, lowercase), or ''. */
	txHash: string;
	/** The state the admin saw: an application now in another answers 409. '' checks nothing. */
	from: string;
	/** A needs_info move's comments on answers, by key (validated by parseMove); null when none. */
	asks?: Asks | null;
	/** A rejection's `YYYY-MM-DD` from which the applicant may apply again, or ''. */
	reapplyAfter?: string;
}

/**
 * How a move's tx hash is checked, which the caller always says: `txCheck`, the endpoint to look it up
 * on (`runtime().chain.polygon`, passed down from the route; null: no POLYGON_RPC_URL, recorded
 * unverified), or `txVerified`, what chain 137 already said (a move found on chain: no lookup).
 */
export type MoveOptions = {
	/**
	 * How a refusal reads: 'one' as a single move's (errors on `applicationId`, "changed meanwhile"),
	 * 'many' (the default) naming every application that cannot make the move (BulkConflict).
	 */
	answer?: 'one' | 'many';
} & ({ txCheck: RpcEndpoint | null } | { txVerified: true | null });

/** One application of a bulk, by the name the admin knows it by. */
export interface BulkApplication {
	id: string;
	displayName: string;
}

/** One that cannot make the move, and why (the transitions table's own words). */
export type BulkRefusal = RefusedItem;

/** The 409 of a bulk move, naming every application that cannot make it. */
export type BulkConflict = FailureOf<409> & { refused: BulkRefusal[] };

/** What a move did, in the order of `applicationIds`: each application as it now is, and its audit row. */
export interface Moved {
	applications: Application[];
	events: ApplicationEvent[];
}

type Current = BulkApplication & ApplicationStates & { formId: number | null };

/**
 * applyMoves: the one move pipeline, a single move being a bulk of one. Order: the tx hash looked up
 * on chain once, before any transaction (a slow endpoint must not hold one open; tx-verify.ts) →
 * one transaction: lock the rows (FOR NO KEY UPDATE: nobody moves them between the check and the UPDATE,
 * while an assignment's foreign-key check may still read them, decision 0042),
 * check each against the state the admin saw and the transitions table (400 for an unknown id, 409
 * for any that cannot: all or nothing), one UPDATE, one audit row each and the batch's webhook
 * outbox rows in one statement, the applicants' notifications in another (for what `outbox` has on).
 * The caller spends the rate limit and validates (parseMove).
 */
export async function applyMoves(
	db: Database,
	outbox: OutboxTargets,
	executor: SignedInMember,
	moves: Moves,
	options: MoveOptions
): Promise<Outcome<Moved>> {
	const { applicationIds: ids, field, to } = moves;
	const txHash = moves.txHash || null;
	let txVerified = 'txVerified' in options ? options.txVerified : null;
	if ('txCheck' in options && needsOf(field, to).txHash && txHash) {
		const checked = await verifyTxHash(options.txCheck, txHash);
		if (!checked.ok) return fieldError('txHash', checked.message);
		txVerified = checked.value.verified;
	}

	// A single move's statements are prepared on a Postgres server (db/prepared.ts); a bulk's text
	// changes with its size, so it is not kept.
	const one = ids.length === 1;
	return db.transaction(async (tx): Promise<Outcome<Moved>> => {
		const locking = tx.select().from(applications).where(inArray(applications.id, ids)).for('no key update');
		const rows = one ? await locking.prepare('lock_application').execute() : await locking;
		const refused = checkMoves(moves, rows, options.answer) ?? (await checkAsks(tx, moves, rows));
		if (refused) return refused;
		const before = new Map(rows.map((r) => [r.id, r[field]]));
		const reapplyAfter = reapplyDay(moves);
		const updating = tx
			.update(applications)
			.set({ [field]: to, updatedAt: sql`now()`, ...(reapplyAfter ? { reapplyAfter } : {}) })
			.where(inArray(applications.id, [...ids]))
			.returning();
		const updated = one ? await updating.prepare('move_application').execute() : await updating;
		const byId = new Map(updated.map((a) => [a.id, a]));
		const moved = ids.map((id) => byId.get(id)!);
		// Each application's programme and round, its round locked against a release meanwhile: in a round
		// released together and not yet released, an approve or reject (and every later move while it is so)
		// is recorded now and its messages held until the release (programs/release.ts).
		const places = await roundsOf(
			tx,
			moved.map((a) => a.roundId),
			true
		);
		const held = moved.map((a) => heldFor(places.get(a.roundId), a.review));
		const audits = moved.map((application) => ({
			applicationId: application.id,
			executorAddress: executor.address,
			field,
			fromState: before.get(application.id)!,
			toState: to,
			reason: moves.reason || null,
			txHash,
			txVerified,
			asks: moves.asks ?? null
		}));
		const events = await insertAuditWithEvents(
			tx,
			outbox,
			audits,
			moved.map((application, i) =>
				applicationTransitioned(application, audits[i]!, places.get(application.roundId)!, held[i])
			)
		);
		// The applicants are told in the same transaction: a refused or rolled-back move tells nobody.
		// The notification carries the asks and the date to apply again (docs/review-guide.md).
		const asked = moves.asks ? await asksInWords(tx, moves.asks, rows) : null;
		await recordNotifications(
			tx,
			outbox,
			moved.map((application, i) => ({
				recipient: application.applicantAddress,
				applicationId: application.id,
				heldRoundId: held[i],
				change: {
					kind: 'application.transitioned',
					field,
					to,
					reason: moves.reason || null,
					txHash,
					asks: asked?.get(application.id),
					reapplyAfter
				}
			}))
		);
		const eventOf = new Map(events.map((e) => [e.applicationId, e]));
		return { ok: true, value: { applications: moved, events: ids.map((id) => eventOf.get(id)!) } };
	});
}

/**
 * The pipeline's checks over the current rows, without writing: null when every application can make
 * the move, else the 400 (an id names no application) or the 409 the move answers. Shared with the
 * bulk confirm step (bulkPreview), so the preview refuses exactly what the move would.
 */
export function checkMoves(
	moves: Moves,
	rows: Current[],
	answer: MoveOptions['answer'] = 'many'
): FailureOf<400> | FailureOf<409> | null {
	const { field, to } = moves;
	const found = new Map(rows.map((r) => [r.id, r]));
	const missing = moves.applicationIds.filter((id) => !found.has(id));
	if (missing.length && answer === 'one') return fieldError('applicationId', m.admin_no_application_id());
	if (missing.length) return fieldError('applicationIds', m.admin_no_application_ids({ ids: missing.join(', ') }));
	const refused: BulkRefusal[] = [];
	for (const id of moves.applicationIds) {
		const row = found.get(id)!;
		const now = row[field];
		const changed = moves.from !== '' && moves.from !== now;
		if (changed && answer === 'one') return stale(field, now);
		const why = changed
			? m.admin_refusal_now({ field: fieldName(field), state: stateName(now) })
			: moveRefusal(row, field, to);
		if (why && answer === 'one') return conflict(why);
		if (why) refused.push({ id, displayName: row.displayName, why });
	}
	if (!refused.length) return null;
	const n = moves.applicationIds.length;
	const list = refused
		.map((r) => m.admin_bulk_refused_item({ name: r.displayName, why: r.why.replace(/[.。]$/, '') }))
		.join('; ');
	return conflict(
		m.admin_bulk_conflict({ refused: refused.length, count: n, action: actionName(field, to), list }),
		refused
	);
}

/** A rejection's date to apply again as stored (the start of that day, UTC), or null; validated by parseMove. */
function reapplyDay(moves: Moves): Date | null {
	if (!moves.reapplyAfter || moves.field !== 'review' || moves.to !== 'rejected') return null;
	const parsed = parseReapplyAfter(moves.reapplyAfter, new Date());
	return 'value' in parsed ? parsed.value : null;
}

/** Each application's asks with the labels of its own form version, in the order they were asked. */
async function asksInWords(
	db: Pick<Database, 'select'>,
	asks: Asks,
	rows: readonly Current[]
): Promise<Map<string, { key: string; label: string; labels?: Record<string, string>; comment: string }[]>> {
	const versions = await formVersions(
		db as Database,
		rows.map((r) => r.formId)
	);
	return new Map(
		rows.map((row) => {
			const questions = row.formId === null ? [] : (versions.get(row.formId) ?? []);
			const label = (key: string) =>
				isBuiltIn(key) ? BUILT_IN_FIELDS[key] : (questions.find((q) => q.key === key)?.label ?? key);
			// The community's own translations of the question's label, so the applicant reads it in their locale.
			const labels = (key: string) => {
				const translations = questions.find((q) => q.key === key)?.translations ?? {};
				const given = Object.entries(translations).flatMap(([locale, t]) => (t?.label ? [[locale, t.label]] : []));
				return given.length ? { labels: Object.fromEntries(given) as Record<string, string> } : {};
			};
			return [
				row.id,
				Object.entries(asks).map(([key, comment]) => ({ key, label: label(key), ...labels(key), comment }))
			];
		})
	);
}

/**
 * The 400 of comments on answers that some selected application's form version does not have (its
 * questions and the built-in fields), or null. One read of those versions' questions.
 */
export async function checkAsks(
	db: Pick<Database, 'select'>,
	moves: Moves,
	rows: readonly Current[]
): Promise<FailureOf<400> | null> {
	if (!moves.asks) return null;
	const versions = await formVersions(
		db as Database,
		rows.map((r) => r.formId)
	);
	for (const row of rows) {
		const [key] = unknownAsks(moves.asks, row.formId === null ? [] : (versions.get(row.formId) ?? []));
		if (key !== undefined)
			return fieldError(
				`ask.${key}`,
				rows.length === 1 ? m.admin_ask_no_answer({ key }) : m.admin_ask_no_answer_of({ name: row.displayName, key })
			);
	}
	return null;
}

export const stale = (field: Field, now: string) =>
	conflict(m.admin_refusal_stale({ field: fieldName(field), state: stateName(now) }));

/**
 * transitionApplication: moves one field of one application as the transitions table permits, with
 * its audit row and webhook event: applyMoves with one id. Order: limit → validate → the pipeline;
 * an admin who moved it first wins and the other gets 409.
 */
export async function transitionApplication(
	db: Database,
	outbox: OutboxTargets,
	txCheck: RpcEndpoint | null,
	admin: SignedInMember,
	input: unknown
): Promise<Outcome<{ application: Application; event: ApplicationEvent }>> {
	const limit = await consume(db, admin.address, 'transitionApplication');
	if (!limit.ok) return rateLimited(limit);
	const parsed = parseSingleMove(input);
	if (!parsed.ok) return parsed;
	const { applicationId, ...move } = parsed.value;
	const outcome = await applyMoves(
		db,
		outbox,
		admin,
		{ ...move, applicationIds: [applicationId] },
		{ answer: 'one', txCheck }
	);
	if (!outcome.ok) return outcome;
	return { ok: true, value: { application: outcome.value.applications[0]!, event: outcome.value.events[0]! } };
}
