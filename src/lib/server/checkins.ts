import { desc, eq, sql } from 'drizzle-orm';
import * as v from 'valibot';
import type { Database } from './db/client';
import { sqlState } from './db/errors';
import { checkIns, type CheckIn } from './db/schema';
import { memberMissing, rateLimited, textField, validate, type Outcome } from './forms';
import type { SignedInMember } from './guards';
import { consume } from './rate-limit';
import { checkinCreated, enqueueWebhookEvent, webhooksEnabled, type Writer } from './webhooks/events';

export type { CheckIn };

export const CHECKIN_FIELDS = ['note'] as const;

const checkinSchema = v.object({ note: textField('Note', { max: 280, multiline: true }) });

/** checkin: records that the member checked in, with an optional note. Order: limit → validate → write. */
export async function checkin(db: Database, member: SignedInMember, input: unknown): Promise<Outcome<CheckIn>> {
	const limit = await consume(db, member.address, 'checkin');
	if (!limit.allowed) return rateLimited('check-ins in 24 hours', limit);
	const parsed = validate(checkinSchema, input);
	if (!parsed.ok) return parsed;
	const write = async (tx: Writer) => {
		const [row] = await tx
			.insert(checkIns)
			.values({ memberAddress: member.address, note: parsed.value.note })
			.returning();
		await enqueueWebhookEvent(tx, checkinCreated(row!));
		return row!;
	};
	try {
		// A transaction only when there is an outbox row to write with the check-in.
		return { ok: true, value: webhooksEnabled() ? await db.transaction(write) : await write(db) };
	} catch (err) {
		// 23503: the session's member row is gone (e.g. a reset database).
		if (sqlState(err) === '23503') return memberMissing;
		throw err;
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
