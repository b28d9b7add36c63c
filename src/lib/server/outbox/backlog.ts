import { sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { rowsOf } from '../db/rows';

export interface OutboxBacklog {
	pending: number;
	/** Seconds since the oldest waiting delivery's event; 0 when none waits. */
	oldestPendingAgeSeconds: number;
	failed: number;
}

/**
 * The outbox as an operator watches it, in one statement on the database clock; both counts read
 * partial indexes of their status (drizzle/0007), so a scrape stays cheap however many rows were delivered.
 * A row held for a round's release counts as pending but not as waiting (its wait is the round's, not a fault).
 */
export async function outboxBacklog(db: Database): Promise<OutboxBacklog> {
	const result = await db.execute(sql`
		select
			(select count(*)::int from webhook_deliveries where status = 'pending') as pending,
			coalesce(extract(epoch from now() - (select min(occurred_at) from webhook_deliveries where status = 'pending' and held_round_id is null)), 0)::float8 as oldest,
			(select count(*)::int from webhook_deliveries where status = 'failed') as failed`);
	const row = rowsOf<{ pending: number; oldest: number; failed: number }>(result)[0]!;
	return {
		pending: Number(row.pending),
		oldestPendingAgeSeconds: Math.max(0, Number(row.oldest)),
		failed: Number(row.failed)
	};
}
