import { sql, type SQL } from 'drizzle-orm';
import type { Database } from '../db/client';
import { executePrepared } from '../db/prepared';
import { rowsOf } from '../db/rows';
import { rateLimitRefusals } from './metrics';
import { ok, type Failed, type Result } from '$lib/platform/result';
import { singleton } from '$lib/platform/singleton';
import { transactionOutcome } from './transaction';
import { m } from '$lib/paraglide/messages';

/** A per-address limit: `limit` calls in `windowSeconds`, and what is counted, in words. */
export interface RateLimitRule {
	limit: number;
	windowSeconds: number;
	/**
	 * What a 429 says was counted: "You have reached the limit of 20 check-ins in 24 hours"; a message
	 * (read when a call is refused, in the request's locale) or plain text.
	 */
	counts: string | (() => string);
}

/** The specification's "Per-address limits on authenticated Server Actions" (docs/data.md). */
export const RATE_LIMITS = {
	submitApplication: { limit: 5, windowSeconds: 24 * 60 * 60, counts: m.form_limit_applications },
	checkin: { limit: 20, windowSeconds: 24 * 60 * 60, counts: m.form_limit_checkins },
	transitionApplication: { limit: 120, windowSeconds: 60 * 60, counts: m.form_limit_state_changes },
	vote: { limit: 240, windowSeconds: 60 * 60, counts: m.form_limit_votes },
	email: { limit: 5, windowSeconds: 24 * 60 * 60, counts: m.form_limit_emails },
	// The applicant's own application (issue 58): drafts are saved as they type, so their bucket is wide.
	saveDraft: { limit: 600, windowSeconds: 60 * 60, counts: m.form_limit_drafts },
	editApplication: { limit: 20, windowSeconds: 24 * 60 * 60, counts: m.form_limit_edits },
	withdrawApplication: { limit: 5, windowSeconds: 24 * 60 * 60, counts: m.form_limit_withdrawals },
	// The team (issue 59): an admin's adds and removes on /admin/team and /admin/reviewers.
	teamChange: { limit: 120, windowSeconds: 60 * 60, counts: m.form_limit_team_changes },
	// The community's look (issue 59): saves of /admin/settings.
	settingsChange: { limit: 60, windowSeconds: 60 * 60, counts: m.form_limit_settings_changes }
} as const satisfies Record<string, RateLimitRule>;

export type RateLimitedAction = keyof typeof RATE_LIMITS;

/** Where a subject stands in the current window. */
export interface RateLimitCount {
	/** Calls counted in the current window, this one included (a refused bulk: what was spent before it). */
	used: number;
	limit: number;
	/** When the current window ends (database clock). */
	resetAt: Date;
}

/** A call over the limit; `rateLimited()` answers it as the 429, adding how long to wait. */
export interface RateLimitRefusal extends Failed<'rate_limited'>, RateLimitCount {}

export type RateLimitResult = Result<RateLimitCount, RateLimitRefusal>;

function counted(
	row: { allowed: boolean; used: number; reset_at: string } | undefined,
	rule: RateLimitRule
): RateLimitResult {
	if (!row) throw new Error('consume_rate_limit returned no row');
	const count = { used: Number(row.used), limit: rule.limit, resetAt: new Date(row.reset_at) };
	if (row.allowed) return ok(count);
	return {
		ok: false,
		code: 'rate_limited',
		message: m.form_limit_reached({
			limit: rule.limit,
			counts: typeof rule.counts === 'string' ? rule.counts : rule.counts()
		}),
		...count
	};
}

/** What a statement reads from consumeCall(): `select allowed, used, reset_at::text as reset_at from …`. */
export type CountedRow = { allowed: boolean; used: number; reset_at: string };

/** The one-call consume_rate_limit() of `action` by `subject`, as a FROM item of one row (allowed, used, reset_at). */
export function consumeCall(subject: string, action: string, rule: RateLimitRule): SQL {
	const { limit, windowSeconds } = rule;
	return sql`consume_rate_limit(${subject}, ${action}, ${limit}::integer, make_interval(secs => ${windowSeconds}::double precision))`;
}

/** The answer to a call counted by consumeCall() in a statement that read `row` from it. */
export function consumedAs(db: Database, row: CountedRow | undefined, action: string, rule: RateLimitRule) {
	const answer = counted(row, rule);
	scheduleCleanup(db);
	if (!answer.ok) rateLimitRefusals.inc({ action });
	return answer;
}

/**
 * Counts one call of `action` by `subject` through consume_rate_limit(): one statement, on the
 * database clock, on the pool (never inside a longer transaction, so no row lock is held long).
 */
export async function consumeRateLimit(
	db: Database,
	subject: string,
	action: string,
	rule: RateLimitRule
): Promise<RateLimitResult> {
	const result = await executePrepared(
		db,
		'consume_rate_limit',
		sql`select allowed, used, reset_at::text as reset_at from ${consumeCall(subject, action, rule)}`
	);
	return consumedAs(db, rowsOf<CountedRow>(result)[0], action, rule);
}

/**
 * Counts `cost` calls of `action` by `address` at once (a bulk move of `cost` applications) through
 * the five-argument consume_rate_limit(). That function adds the cost whether or not it fits, as the
 * one-call form counts a refused call; a bulk that does not fit must spend nothing (decision 0015), so
 * the statement runs in a transaction of its own, rolled back when refused (transactionOutcome). The
 * counter's row lock is held for that one statement only.
 */
export async function consumeCost(
	db: Database,
	address: string,
	action: RateLimitedAction,
	cost: number
): Promise<RateLimitResult> {
	const rule = RATE_LIMITS[action];
	const { limit, windowSeconds } = rule;
	try {
		const answer = await transactionOutcome(db, async (tx) => {
			const result = await executePrepared(
				tx,
				'consume_rate_limit_cost',
				sql`select allowed, used, reset_at::text as reset_at from consume_rate_limit(${address.toLowerCase()}, ${action}, ${limit}::integer, make_interval(secs => ${windowSeconds}::double precision), ${cost}::integer)`
			);
			const answer = counted(rowsOf<{ allowed: boolean; used: number; reset_at: string }>(result)[0], rule);
			return answer.ok ? answer : { ...answer, used: answer.used - cost };
		});
		if (!answer.ok) rateLimitRefusals.inc({ action });
		return answer;
	} finally {
		scheduleCleanup(db);
	}
}

/** consumeRateLimit() for one of the RATE_LIMITS operations, keyed by wallet address (per-address rule 3, docs/data.md). */
export function consume(db: Database, address: string, action: RateLimitedAction): Promise<RateLimitResult> {
	return consumeRateLimit(db, address.toLowerCase(), action, RATE_LIMITS[action]);
}

/** Deletes counters whose window has ended; a restarted window would count from 1 anyway. */
export async function deleteExpiredWindows(db: Database): Promise<number> {
	const result = await db.execute(sql`delete from rate_limit_counters where window_ends_at <= now() returning 1`);
	return rowsOf(result).length;
}

const CLEANUP_INTERVAL_MS = 10 * 60 * 1000;
const cleanups = singleton('rate limit cleanups', () => new WeakMap<Database, number>());

// At most every ten minutes per database, in the background, so no request waits for it.
function scheduleCleanup(db: Database) {
	const lastCleanup = cleanups.get();
	const now = Date.now();
	if (now - (lastCleanup.get(db) ?? 0) < CLEANUP_INTERVAL_MS) return;
	lastCleanup.set(db, now);
	deleteExpiredWindows(db).catch(() => lastCleanup.delete(db));
}
