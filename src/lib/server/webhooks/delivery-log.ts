import { and, desc, eq, isNotNull, lt, sql } from 'drizzle-orm';
import * as v from 'valibot';
import type { Database } from '../db/client';
import { webhookDeliveries as w } from '../db/schema';
import { textField, validate } from '../platform/forms';
import { conflict, fieldError, rateLimited, type Outcome } from '../platform/outcome';
import type { SignedInMember } from '../auth/guards';
import { consumeRateLimit, type RateLimitRule } from '../platform/rate-limit';
import { m } from '$lib/paraglide/messages';

/**
 * A delivery as /admin/webhooks lists it: the URL's host only, never its path (a token, for Discord);
 * for a push or e-mail row, whose receiver is read at sending time, the channel's name.
 */
export interface DeliveryRow {
	id: number;
	eventId: string;
	eventType: string;
	urlHost: string;
	status: 'pending' | 'delivered' | 'failed';
	attempts: number;
	lastStatus: number | null;
	lastError: string | null;
	occurredAt: Date;
	lastAttemptAt: Date | null;
	nextAttemptAt: Date;
	deliveredAt: Date | null;
	/** Set aside after its sender threw the same way again and again (outbox/store.ts SET_ASIDE_AFTER). */
	setAsideAt: Date | null;
}

export const RECENT_DELIVERIES = 100;

/** Deliveries per channel and status (webhooks, push, e-mail): counts only, never an address or an endpoint. */
export interface ChannelCount {
	channel: string;
	pending: number;
	delivered: number;
	failed: number;
}

export async function channelCounts(db: Database): Promise<ChannelCount[]> {
	const rows = await db
		.select({ channel: w.channel, status: w.status, n: sql<number>`count(*)::int` })
		.from(w)
		.groupBy(w.channel, w.status)
		.orderBy(w.channel);
	const byChannel = new Map<string, ChannelCount>();
	for (const { channel, status, n } of rows) {
		const c = byChannel.get(channel) ?? { channel, pending: 0, delivered: 0, failed: 0 };
		c[status] = Number(n);
		byChannel.set(channel, c);
	}
	return [...byChannel.values()];
}

const deliveryColumns = {
	id: w.id,
	eventId: w.eventId,
	eventType: w.eventType,
	urlHost: sql<string>`coalesce(${w.urlHost}, ${w.channel})`,
	status: w.status,
	attempts: w.attempts,
	lastStatus: w.lastStatus,
	lastError: w.lastError,
	occurredAt: w.occurredAt,
	lastAttemptAt: w.lastAttemptAt,
	nextAttemptAt: w.nextAttemptAt,
	deliveredAt: w.deliveredAt,
	setAsideAt: w.setAsideAt
};

/** Deliveries a page shows: a phone reads 20 cards, not 100 (issue 61); "Older deliveries" pages on. */
export const DELIVERIES_PAGE = 20;

/**
 * One page of deliveries, newest first, from just below `before` (a delivery id) or from the newest:
 * keyset on the primary key, so every page costs what the first does.
 */
export async function deliveryPage(
	db: Database,
	before: number | null
): Promise<{ rows: DeliveryRow[]; older: number | null }> {
	const rows = await db
		.select(deliveryColumns)
		.from(w)
		.where(before === null ? undefined : lt(w.id, before))
		.orderBy(desc(w.id))
		.limit(DELIVERIES_PAGE + 1);
	const page = rows.slice(0, DELIVERIES_PAGE);
	return { rows: page, older: rows.length > DELIVERIES_PAGE ? page.at(-1)!.id : null };
}

/** The rows set aside (however old, while they are kept), newest first: each waits for an admin's look. */
export async function setAsideDeliveries(db: Database, limit = RECENT_DELIVERIES): Promise<DeliveryRow[]> {
	return db
		.select(deliveryColumns)
		.from(w)
		.where(and(eq(w.status, 'failed'), isNotNull(w.setAsideAt)))
		.orderBy(desc(w.id))
		.limit(limit);
}

/** An admin's retries: generous, but a script cannot hammer receivers through the portal. */
export const RETRY_LIMIT: RateLimitRule = { limit: 120, windowSeconds: 60 * 60, counts: 'webhook retries in an hour' };

export const RETRY_FIELDS = ['deliveryId'] as const;

const retrySchema = v.object({
	deliveryId: v.pipe(
		textField('Delivery', { min: 1, max: 18 }),
		v.regex(/^[1-9]\d*$/, () => m.admin_delivery_number()),
		v.transform(Number)
	)
});

/**
 * An admin's retry of a failed delivery: due now, and failed again after one more unsuccessful
 * attempt (no new 24 hours of retries). Order: limit → validate → one statement.
 */
export async function retryDelivery(
	db: Database,
	admin: SignedInMember,
	input: unknown
): Promise<Outcome<{ id: number }>> {
	const limit = await consumeRateLimit(db, admin.address, 'retryWebhook', RETRY_LIMIT);
	if (!limit.ok) return rateLimited(limit);
	const parsed = validate(retrySchema, input);
	if (!parsed.ok) return parsed;
	const id = parsed.value.deliveryId;
	const [row] = await db
		.update(w)
		.set({ status: 'pending', nextAttemptAt: sql`now()`, leasedUntil: null, retryUntil: sql`now()`, setAsideAt: null })
		.where(and(eq(w.id, id), eq(w.status, 'failed')))
		.returning({ id: w.id });
	if (row) return { ok: true, value: row };
	const [exists] = await db.select({ status: w.status }).from(w).where(eq(w.id, id));
	if (!exists) return fieldError('deliveryId', m.admin_no_delivery());
	return conflict(m.admin_delivery_not_failed({ id, status: exists.status }));
}
