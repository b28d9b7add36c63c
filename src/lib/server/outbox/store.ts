import { and, eq, inArray, isNull, lte, or, sql, type SQLWrapper } from 'drizzle-orm';
import type { Database } from '../db/client';
import { rowsOf } from '../db/rows';
import { webhookDeliveries as w, type DeliveryChannel } from '../db/schema';

/** A claimed row: `attempts` is this attempt's number, which no other claim can get. */
export interface ClaimedDelivery {
	id: number;
	eventId: string;
	eventType: string;
	data: Record<string, unknown>;
	occurredAt: Date;
	channel: DeliveryChannel;
	/** The webhook URL's hash; null for the other channels' rows. */
	urlHash: string | null;
	attempts: number;
}

/** The queues a claim of due rows takes from: webhook URLs by hash, and channels whose rows name no URL. */
export interface DueQueues {
	hashes: readonly string[];
	channels: readonly DeliveryChannel[];
}

const seconds = (ms: number) => sql`make_interval(secs => ${ms / 1000}::double precision)`;

/**
 * A row that may be claimed now: pending, due, not held for a round's release (programs/release.ts), and not
 * leased to an attempt under way.
 */
const claimable = () =>
	and(
		eq(w.status, 'pending'),
		isNull(w.heldRoundId),
		lte(w.nextAttemptAt, sql`now()`),
		or(isNull(w.leasedUntil), lte(w.leasedUntil, sql`now()`))
	);

/**
 * Takes the rows `chosen` selects (its row locks, SKIP LOCKED, let processes claim side by side
 * without waiting or overlapping): counts the attempt and leases the row (leased_until, `leaseMs`
 * ahead), so nobody else claims it while it is sent, and a process that dies mid-send leaves it to be
 * claimed again when the lease ends.
 */
function claim(db: Database, chosen: SQLWrapper, leaseMs: number): Promise<ClaimedDelivery[]> {
	return db
		.update(w)
		.set({
			attempts: sql`${w.attempts} + 1`,
			lastAttemptAt: sql`now()`,
			leasedUntil: sql`now() + ${seconds(leaseMs)}`
		})
		.where(inArray(w.id, chosen))
		.returning({
			id: w.id,
			eventId: w.eventId,
			eventType: w.eventType,
			data: w.data,
			occurredAt: w.occurredAt,
			channel: w.channel,
			urlHash: w.urlHash,
			attempts: w.attempts
		});
}

/** Claims up to `limit` due rows of `queues` in one statement, the longest due first. */
export function claimDue(db: Database, queues: DueQueues, limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
	const of = [
		...(queues.hashes.length > 0 ? [inArray(w.urlHash, [...queues.hashes])] : []),
		...(queues.channels.length > 0 ? [and(isNull(w.urlHash), inArray(w.channel, [...queues.channels]))] : [])
	];
	const due = db
		.select({ id: w.id })
		.from(w)
		.where(and(claimable(), of.length > 0 ? or(...of) : sql`false`))
		.orderBy(w.nextAttemptAt)
		.limit(limit)
		.for('update', { skipLocked: true });
	return claim(db, due, leaseMs);
}

/**
 * Claims, in one statement, the oldest due row of each of `hashes` (webhook chat endpoints, which take one
 * message at a time in the order the events happened).
 */
export function claimHeads(db: Database, hashes: readonly string[], leaseMs: number): Promise<ClaimedDelivery[]> {
	const heads = sql`(select head.id from unnest(array[${sql.join(
		hashes.map((h) => sql`${h}`),
		sql`, `
	)}]::text[]) as endpoint(hash) cross join lateral (
		select ${w.id} as id from ${w} where ${w.urlHash} = endpoint.hash and ${claimable()}
		order by ${w.id} limit 1 for update skip locked) as head)`;
	return claim(db, heads, leaseMs);
}

/** What one attempt got. */
export interface AttemptResult {
	delivered: boolean;
	/** The receiver's HTTP status, null when none came back. */
	status: number | null;
	error: string | null;
	/** Not to be tried again (410 Gone). */
	final: boolean;
	/** Wait before the next attempt. */
	retryInMs: number;
	/** The sender threw rather than answer (dispatch.ts): counts towards setting the row aside. */
	threw?: boolean;
}

/**
 * A row whose sender has thrown the same way this many times is set aside (failed, `set_aside_at`,
 * listed on /admin/webhooks) rather than tried for the rest of the retry window: it will not pass by waiting.
 */
export const SET_ASIDE_AFTER = 5;

export type RecordedAttempt = AttemptResult & Pick<ClaimedDelivery, 'id' | 'attempts'>;

/**
 * Records attempts in one statement and schedules each row's next one, or gives up once the next
 * would come after the retry window (or after an admin's single retry), or sets it aside once its
 * sender has thrown the same way SET_ASIDE_AFTER times. Only the claim that made an attempt can record
 * it (`attempts` matches); returns how many rows were recorded.
 */
export async function recordAttempts(
	db: Database,
	attempts: readonly RecordedAttempt[],
	retryWindowMs: number
): Promise<number> {
	if (attempts.length === 0) return 0;
	const results = JSON.stringify(
		attempts.map((a) => ({
			id: a.id,
			attempt: a.attempts,
			delivered: a.delivered,
			final: a.final,
			status: a.status,
			error: a.error,
			threw: a.threw === true,
			delay: a.retryInMs / 1000
		}))
	);
	const next = sql`now() + make_interval(secs => r.delay)`;
	// This attempt threw, and the attempt log holds SET_ASIDE_AFTER - 1 earlier ones with the same error.
	const aside = sql`(r.threw and (select count(*) from jsonb_array_elements(${w.attemptLog}) as e
		where e->>'error' = r.error) >= ${SET_ASIDE_AFTER - 1})`;
	const result = await db.execute(sql`
		update ${w} set
			status = (case
				when r.delivered then 'delivered'
				when r.final or ${aside} or ${next} > coalesce(${w.retryUntil}, ${w.occurredAt} + ${seconds(retryWindowMs)}) then 'failed'
				else 'pending' end)::webhook_status,
			last_status = r.status,
			last_error = r.error,
			next_attempt_at = case when r.delivered then now() else ${next} end,
			leased_until = null,
			delivered_at = case when r.delivered then now() end,
			set_aside_at = case when ${aside} then now() end,
			attempt_log = ${w.attemptLog} || jsonb_build_array(jsonb_build_object(
				'attempt', r.attempt, 'at', now(), 'status', r.status, 'error', r.error))
		from jsonb_to_recordset(${results}::jsonb)
			as r(id bigint, attempt integer, delivered boolean, final boolean, status integer, error text, threw boolean,
				delay double precision)
		where ${w.id} = r.id and ${w.attempts} = r.attempt and ${w.status} = 'pending'
		returning ${w.id}`);
	return rowsOf(result).length;
}

/** Deletes delivered and failed rows older than `keepMs`; pending ones stay until they are settled. */
export async function deleteSettled(db: Database, keepMs: number): Promise<number> {
	const result = await db.execute(
		sql`delete from ${w} where ${w.status} <> 'pending' and ${w.occurredAt} < now() - ${seconds(keepMs)} returning 1`
	);
	return rowsOf(result).length;
}
