import { and, count, desc, eq, isNull, sql } from 'drizzle-orm';
import * as v from 'valibot';
import type { Database } from '../db/client';
import { builtOnce } from '../db/prepared';
import { notifications } from '../db/schema';
import { validate } from '../platform/forms';
import type { Outcome } from '../platform/outcome';
import { m } from '$lib/paraglide/messages';
import type { Markup } from '$lib/notifications/markup';

/** One notification as its recipient sees it. */
export interface InboxEntry {
	id: number;
	kind: string;
	title: string;
	body: string;
	/** A community's template or an admin's message, as paragraphs, lists, bold and links (markup.ts); else null. */
	markup: Markup | null;
	createdAt: Date;
	read: boolean;
}

/** How many the inbox shows: the newest; older ones stay in the table. */
export const INBOX_SIZE = 100;

/**
 * The member's own notifications, newest first (nobody else's: the recipient is in every query); one held
 * for a round's release (a staged decision, programs/release.ts) is not theirs to see until then.
 */
export async function inboxOf(db: Database, address: string): Promise<InboxEntry[]> {
	const rows = await db
		.select({
			id: notifications.id,
			kind: notifications.kind,
			title: notifications.title,
			body: notifications.body,
			markup: notifications.markup,
			createdAt: notifications.createdAt,
			readAt: notifications.readAt
		})
		.from(notifications)
		.where(and(eq(notifications.recipientAddress, address.toLowerCase()), isNull(notifications.heldRoundId)))
		.orderBy(desc(notifications.id))
		.limit(INBOX_SIZE);
	return rows.map(({ readAt, ...r }) => ({ ...r, read: readAt !== null }));
}

/** The member's unread count, for the header. */
export async function unreadCount(db: Database, address: string): Promise<number> {
	const [row] = await unreadStatement(db, { address: address.toLowerCase() });
	return row?.n ?? 0;
}
// Prepared and built once (db/prepared.ts): every signed-in page asks it, and building the select was
// most of its cost to the portal (bench/README.md "Figures behind the code").
const unreadStatement = builtOnce('unread_count', (db) =>
	db
		.select({ n: count() })
		.from(notifications)
		.where(
			and(
				eq(notifications.recipientAddress, sql.placeholder('address')),
				isNull(notifications.readAt),
				isNull(notifications.heldRoundId)
			)
		)
);

export const READ_FIELDS = ['id'] as const;

const readSchema = v.object({
	id: v.optional(
		v.pipe(
			v.string(() => m.notify_id_not_text()),
			v.regex(/^[1-9]\d{0,17}$/, () => m.notify_id_invalid()),
			v.transform(Number)
		)
	)
});

/**
 * markRead: one of the member's notifications (`id`) or all of them (no `id`) marked read. An id
 * that is not theirs changes nothing, as an id that does not exist: nobody learns of another's rows.
 */
export async function markRead(db: Database, address: string, input: unknown): Promise<Outcome<{ marked: number }>> {
	const parsed = validate(readSchema, input);
	if (!parsed.ok) return parsed;
	const mine = and(
		eq(notifications.recipientAddress, address.toLowerCase()),
		isNull(notifications.readAt),
		isNull(notifications.heldRoundId)
	);
	const marked = await db
		.update(notifications)
		.set({ readAt: sql`now()` })
		.where(parsed.value.id === undefined ? mine : and(mine, eq(notifications.id, parsed.value.id)))
		.returning({ id: notifications.id });
	return { ok: true, value: { marked: marked.length } };
}
