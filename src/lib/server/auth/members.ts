import { and, eq, ne, sql } from 'drizzle-orm';
import { LRUCache } from 'lru-cache';
import type { Database } from '../db/client';
import { members } from '../db/schema';

function buildUpsert(db: Database) {
	return (
		db
			.insert(members)
			.values({ address: sql.placeholder('address') })
			.onConflictDoUpdate({ target: members.address, set: { lastSignedInAt: sql`now()` } })
			.returning({ locale: members.locale })
			// Prepared on a Postgres server: every sign-in runs it (db/prepared.ts).
			.prepare('upsert_member')
	);
}

// Built once per database handle: building the statement (drizzle's query builder and SQL text) on every
// sign-in was a measurable part of its CPU (bench/README.md "Figures behind the code").
const upserts = new WeakMap<Database, ReturnType<typeof buildUpsert>>();

/**
 * Creates the member on first sign-in, or records the sign-in time of a returning one (by lowercase
 * address). The statement returns the locale the row holds, which this process then takes as recorded
 * (recordMemberLocale): the first page or form the member sends in that locale after signing in writes
 * nothing, where it was one more statement on each new member's first request (issue 60).
 */
export async function upsertMember(db: Database, address: string): Promise<void> {
	let upsert = upserts.get(db);
	if (!upsert) {
		upsert = buildUpsert(db);
		upserts.set(db, upsert);
	}
	const lower = address.toLowerCase();
	const [row] = await upsert.execute({ address: lower });
	if (row) localesOf(db).set(lower, row.locale);
	else localesOf(db).delete(lower);
}

/**
 * How long a locale this process recorded for an address is taken as still recorded: within it a visit in
 * the same locale writes nothing. With several instances, a member who switches language on another one
 * and comes back here in this one's locale within the minute keeps the other's until a visit after it.
 */
export const LOCALE_RECORDED_MS = 60_000;

// Per database handle, as the upserts above: address → the locale last recorded for it (or read at sign-in).
const recordedLocales = new WeakMap<Database, LRUCache<string, string>>();
function localesOf(db: Database): LRUCache<string, string> {
	let recorded = recordedLocales.get(db);
	if (!recorded) {
		recorded = new LRUCache<string, string>({ max: 10_000, ttl: LOCALE_RECORDED_MS });
		recordedLocales.set(db, recorded);
	}
	return recorded;
}

/**
 * Records the locale of a signed-in member's page visit (their notifications speak it); writes only when
 * it changed, so a visit in the same locale as the last is one index read, and none at all while this
 * process recorded that locale (or read it at the member's sign-in) less than LOCALE_RECORDED_MS ago: every signed-in page and form post
 * calls this, and the statement on each was a part of what mixed traffic lost (issue 60, bench/README.md
 * "Figures behind the code").
 */
export async function recordMemberLocale(db: Database, address: string, locale: string): Promise<void> {
	const lower = address.toLowerCase();
	const recorded = localesOf(db);
	if (recorded.get(lower) === locale) return;
	await db
		.update(members)
		.set({ locale })
		.where(and(eq(members.address, lower), ne(members.locale, locale)));
	recorded.set(lower, locale);
}
