import { desc, eq, getTableColumns, sql } from 'drizzle-orm';
import * as v from 'valibot';
import { LENGTHS } from '$lib/platform/limits';
import type { Database } from '../db/client';
import { checkIns, type CheckIn } from '../db/schema';
import { textField, validate } from '../platform/forms';
import { m } from '$lib/paraglide/messages';
import { failureOfDatabaseError, memberMissing, rateLimited, type Outcome } from '../platform/outcome';
import type { SignedInMember } from '../auth/guards';
import { RATE_LIMITS, consume, consumeCall, consumedAs, type CountedRow } from '../platform/rate-limit';
import { builtOnce, executePrepared } from '../db/prepared';
import { rowsOf } from '../db/rows';
import type { OutboxTargets } from '../platform/outbox-targets';
import { checkinCreated, enqueueWebhookEvent, webhooksOn, type Writer } from '../webhooks/events';

export type { CheckIn };

export const CHECKIN_FIELDS = ['note'] as const;

const checkinSchema = v.object({ note: textField(m.checkin_note_label, { ...LENGTHS.checkinNote, multiline: true }) });

/**
 * checkin: records that the member checked in, with an optional note. Order: limit → validate → write
 * (an invalid note is counted too, and a call over the limit is answered 429 whatever its note); the
 * `checkin.created` webhook rows are written with it when `outbox` has webhooks on.
 */
export async function checkin(
	db: Database,
	outbox: OutboxTargets,
	member: SignedInMember,
	input: unknown
): Promise<Outcome<CheckIn>> {
	const parsed = validate(checkinSchema, input);
	// The common case, a valid note and no outbox row to write with it: the limit and the insert in one statement.
	if (parsed.ok && !webhooksOn(outbox)) return limitAndInsert(db, member.address.toLowerCase(), parsed.value.note);
	const limit = await consume(db, member.address, 'checkin');
	if (!limit.ok) return rateLimited(limit);
	if (!parsed.ok) return parsed;
	const write = async (tx: Writer) => {
		const [row] = await tx
			.insert(checkIns)
			.values({ memberAddress: member.address, note: parsed.value.note })
			.returning()
			// Prepared on a Postgres server, as the limit before it (db/prepared.ts).
			.prepare('insert_check_in')
			.execute();
		await enqueueWebhookEvent(tx, outbox, checkinCreated(row!));
		return row!;
	};
	try {
		// A transaction only when there is an outbox row to write with the check-in.
		return { ok: true, value: webhooksOn(outbox) ? await db.transaction(write) : await write(db) };
	} catch (err) {
		// A foreign key: the session's member row is gone (e.g. a reset database).
		return failureOfDatabaseError(err, { foreignKey: memberMissing });
	}
}

type CountedInsert = CountedRow & { id: string | null; note: string | null; created_ms: number | null };

/**
 * Counts the call and, when it is allowed, inserts the check-in, in one statement: one round trip to
 * the database instead of two, which took about a sixth off the server's CPU per check-in (bench/history/2026-11-27-bench-share-log-line-seal.md,
 * "The session check and the check-in against the old builds"). A refused call inserts nothing; a failed
 * insert (the member row gone) counts nothing either.
 */
async function limitAndInsert(db: Database, address: string, note: string): Promise<Outcome<CheckIn>> {
	let row: CountedInsert | undefined;
	try {
		const result = await executePrepared(
			db,
			'checkin_limited_insert',
			sql`with counted as materialized (
				select allowed, used, reset_at from ${consumeCall(address, 'checkin', RATE_LIMITS.checkin)}
			), inserted as (
				insert into ${checkIns} (member_address, note) select ${address}, ${note} from counted where counted.allowed
				returning id, note, created_at
			)
			select counted.allowed, counted.used, counted.reset_at::text as reset_at, inserted.id, inserted.note,
				(extract(epoch from inserted.created_at) * 1000)::float8 as created_ms
			from counted left join inserted on true`
		);
		row = rowsOf<CountedInsert>(result)[0];
	} catch (err) {
		// A foreign key: the session's member row is gone (e.g. a reset database).
		return failureOfDatabaseError(err, { foreignKey: memberMissing });
	}
	const limit = consumedAs(db, row, 'checkin', RATE_LIMITS.checkin);
	if (!limit.ok) return rateLimited(limit);
	if (!row?.id || row.note === null || row.created_ms === null) throw new Error('the check-in was not inserted');
	return {
		ok: true,
		value: { id: row.id, memberAddress: address, note: row.note, createdAt: new Date(row.created_ms) }
	};
}

export const RECENT_CHECKINS = 20;

export interface CheckInSummary {
	total: number;
	/** Consecutive UTC days with a check-in, ending today (or yesterday, so a streak lasts until the day is over). */
	streakDays: number;
}

/** How many days in a row end at `today`, given distinct `YYYY-MM-DD` days newest first. */
export function streakOf(days: string[], today: Date): number {
	const dayMs = 86_400_000;
	const start = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate());
	const first = days[0] ? Date.parse(`${days[0]}T00:00:00Z`) : NaN;
	// A streak counts from today, or from yesterday while today has no check-in yet.
	if (first !== start && first !== start - dayMs) return 0;
	let streak = 0;
	for (const day of days) {
		if (Date.parse(`${day}T00:00:00Z`) !== first - streak * dayMs) break;
		streak++;
	}
	return streak;
}

/** What /checkin shows: the member's latest check-ins, newest first, and their count and streak. */
export interface CheckInPage {
	checkIns: CheckIn[];
	summary: CheckInSummary;
}

/** The days with a check-in, distinct, newest first: a streak longer than a year still reads as 366+ days. */
const dayOf = sql<string>`to_char(${checkIns.createdAt} at time zone 'UTC', 'YYYY-MM-DD')`;

/**
 * /checkin's reads in one statement, built once (db/prepared.ts): the latest check-ins, each with the
 * member's count beside it, and with the newest one the days that make the streak. A member without a
 * check-in gets no row, which is a count of 0 and no streak. Three statements built on every view before
 * (issue 60: a check-in refused 429 renders this page).
 */
const checkInPageStatement = builtOnce('checkin_page', (db) => {
	const member = eq(checkIns.memberAddress, sql.placeholder('address'));
	const days = db
		.selectDistinct({ day: dayOf.as('day') })
		.from(checkIns)
		.where(member)
		.orderBy(sql`1 desc`)
		.limit(366);
	const newest = sql`${checkIns.createdAt} desc nulls last, ${checkIns.id} desc`;
	return (
		db
			.select({
				checkIn: getTableColumns(checkIns),
				total: sql<number>`(select count(*)::int from ${checkIns} where ${member})`,
				days: sql<string[] | null>`case when row_number() over (order by ${newest}) = 1
					then array(select day from (${days}) as d) end`
			})
			.from(checkIns)
			.where(member)
			// "desc nulls last" is how the index is ordered; plain desc() would make Postgres sort instead.
			.orderBy(sql`${checkIns.createdAt} desc nulls last`, desc(checkIns.id))
			.limit(RECENT_CHECKINS)
	);
});

/** /checkin's check-ins, count and streak at `now`: one statement. */
export async function checkInPage(db: Database, address: string, now = new Date()): Promise<CheckInPage> {
	const rows = await checkInPageStatement(db, { address: address.toLowerCase() });
	const first = rows[0];
	return {
		checkIns: rows.map((r) => r.checkIn),
		summary: { total: first?.total ?? 0, streakDays: streakOf(first?.days ?? [], now) }
	};
}
