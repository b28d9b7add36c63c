import { sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { rowsOf } from '../db/rows';
import { rateLimitRefusals } from './metrics';

/** The specification's "Per-address limits on authenticated Server Actions" (docs/data.md). */
export const RATE_LIMITS = {
	submitApplication: { limit: 5, windowSeconds: 24 * 60 * 60 },
	checkin: { limit: 20, windowSeconds: 24 * 60 * 60 },
	transitionApplication: { limit: 120, windowSeconds: 60 * 60 },
	vote: { limit: 240, windowSeconds: 60 * 60 }
} as const satisfies Record<string, { limit: number; windowSeconds: number }>;

export type RateLimitedAction = keyof typeof RATE_LIMITS;

export interface RateLimitResult {
	allowed: boolean;
	/** Calls counted in the current window, this one included. */
	used: number;
	limit: number;
	/** When the current window ends (database clock). */
	resetAt: Date;
}

/**
 * Counts one call of `action` by `subject` through consume_rate_limit(): one statement, on the
 * database clock, on the pool (never inside a longer transaction, so no row lock is held long).
 */
export async function consumeRateLimit(
	db: Database,
	subject: string,
	action: string,
	limit: number,
	windowSeconds: number
): Promise<RateLimitResult> {
	const result = await db.execute(
		sql`select allowed, used, reset_at::text as reset_at from consume_rate_limit(${subject}, ${action}, ${limit}::integer, make_interval(secs => ${windowSeconds}::double precision))`
	);
	const row = rowsOf<{ allowed: boolean; used: number; reset_at: string }>(result)[0];
	if (!row) throw new Error('consume_rate_limit returned no row');
	scheduleCleanup(db);
	if (!row.allowed) rateLimitRefusals.inc({ action });
	return { allowed: row.allowed, used: Number(row.used), limit, resetAt: new Date(row.reset_at) };
}

class Unaffordable extends Error {
	constructor(readonly result: RateLimitResult) {
		super('rate limit: cost does not fit');
	}
}

/**
 * Counts `cost` calls of `action` by `address` at once (a bulk move of `cost` applications) through
 * the five-argument consume_rate_limit(). That function adds the cost whether or not it fits, as the
 * one-call form counts a refused call; a bulk that does not fit must spend nothing (decision 0015), so
 * the statement runs in a transaction of its own, rolled back when refused. The counter's row lock is
 * held for that one statement only.
 */
export async function consumeCost(
	db: Database,
	address: string,
	action: RateLimitedAction,
	cost: number
): Promise<RateLimitResult> {
	const { limit, windowSeconds } = RATE_LIMITS[action];
	try {
		return await db.transaction(async (tx) => {
			const result = await tx.execute(
				sql`select allowed, used, reset_at::text as reset_at from consume_rate_limit(${address.toLowerCase()}, ${action}, ${limit}::integer, make_interval(secs => ${windowSeconds}::double precision), ${cost}::integer)`
			);
			const row = rowsOf<{ allowed: boolean; used: number; reset_at: string }>(result)[0];
			if (!row) throw new Error('consume_rate_limit returned no row');
			const counted = { allowed: row.allowed, used: Number(row.used), limit, resetAt: new Date(row.reset_at) };
			if (!counted.allowed) throw new Unaffordable({ ...counted, used: counted.used - cost });
			return counted;
		});
	} catch (err) {
		if (err instanceof Unaffordable) {
			rateLimitRefusals.inc({ action });
			return err.result;
		}
		throw err;
	} finally {
		scheduleCleanup(db);
	}
}

/** consume() for one of the RATE_LIMITS operations, keyed by wallet address (per-address rule 3, docs/data.md). */
export function consume(db: Database, address: string, action: RateLimitedAction): Promise<RateLimitResult> {
	const { limit, windowSeconds } = RATE_LIMITS[action];
	return consumeRateLimit(db, address.toLowerCase(), action, limit, windowSeconds);
}

/** Deletes counters whose window has ended; a restarted window would count from 1 anyway. */
export async function deleteExpiredWindows(db: Database): Promise<number> {
	const result = await db.execute(sql`delete from rate_limit_counters where window_ends_at <= now() returning 1`);
	return rowsOf(result).length;
}

const CLEANUP_INTERVAL_MS = 10 * 60 * 1000;
const lastCleanup = new WeakMap<Database, number>();

// At most every ten minutes per database, in the background, so no request waits for it.
function scheduleCleanup(db: Database) {
	const now = Date.now();
	if (now - (lastCleanup.get(db) ?? 0) < CLEANUP_INTERVAL_MS) return;
	lastCleanup.set(db, now);
	deleteExpiredWindows(db).catch(() => lastCleanup.delete(db));
}
