import { desc, eq, sql } from 'drizzle-orm';
import * as v from 'valibot';
import { LENGTHS } from '$lib/limits';
import type { Database } from '../db/client';
import { checkIns, type CheckIn } from '../db/schema';
import { textField, validate } from '../platform/forms';
import { failureOfDatabaseError, memberMissing, rateLimited, type Outcome } from '../platform/outcome';
import type { SignedInMember } from '../auth/guards';
import { consume } from '../platform/rate-limit';
import { checkinCreated, enqueueWebhookEvent, webhooksEnabled, type Writer } from '../webhooks/events';

export type { CheckIn };

export const CHECKIN_FIELDS = ['note'] as const;

const checkinSchema = v.object({ note: textField('Note', { ...LENGTHS.checkinNote, multiline: true }) });

/** checkin: records that the member checked in, with an optional note. Order: limit → validate → write. */
export async function checkin(db: Database, member: SignedInMember, input: unknown): Promise<Outcome<CheckIn>> {
	const limit = await consume(db, member.address, 'checkin');
	if (!limit.ok) return rateLimited(limit);
	const parsed = validate(checkinSchema, input);
	if (!parsed.ok) return parsed;
	const write = async (tx: Writer) => {
		const [row] = await tx
			.insert(checkIns)
			.values({ memberAddress: member.address, note: parsed.value.note })
			.returning()
			// Prepared on a Postgres server, as the limit before it (db/prepared.ts).
			.prepare('insert_check_in')
			.execute();
		await enqueueWebhookEvent(tx, checkinCreated(row!));
		return row!;
	};
	try {
		// A transaction only when there is an outbox row to write with the check-in.
		return { ok: true, value: webhooksEnabled() ? await db.transaction(write) : await write(db) };
	} catch (err) {
		// A foreign key: the session's member row is gone (e.g. a reset database).
		return failureOfDatabaseError(err, { foreignKey: memberMissing });
	}
}

export const RECENT_CHECKINS = 20;

/** The member's latest check-ins, newest first. */
export async function recentCheckIns(db: Database, address: string, limit = RECENT_CHECKINS): Promise<CheckIn[]> {
	return (
		db
			.select()
			.from(checkIns)
			.where(eq(checkIns.memberAddress, address.toLowerCase()))
			// "desc nulls last" is how the index is ordered; plain desc() would make Postgres sort instead.
			.orderBy(sql`${checkIns.createdAt} desc nulls last`, desc(checkIns.id))
			.limit(limit)
	);
}

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

/** The member's own count and streak, shown on /checkin so a check-in visibly adds up. */
export async function checkInSummary(db: Database, address: string, now = new Date()): Promise<CheckInSummary> {
	const member = eq(checkIns.memberAddress, address.toLowerCase());
	const day = sql<string>`to_char(${checkIns.createdAt} at time zone 'UTC', 'YYYY-MM-DD')`;
	const [[counted], days] = await Promise.all([
		db
			.select({ total: sql<number>`count(*)::int` })
			.from(checkIns)
			.where(member),
		// A streak longer than a year still reads as 366+ days; no need to read further back.
		db
			.selectDistinct({ day })
			.from(checkIns)
			.where(member)
			.orderBy(sql`1 desc`)
			.limit(366)
	]);
	return {
		total: counted?.total ?? 0,
		streakDays: streakOf(
			days.map((d) => d.day),
			now
		)
	};
}
