import { and, eq, ne, sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { members } from '../db/schema';

function buildUpsert(db: Database) {
	return (
		db
			.insert(members)
			.values({ address: sql.placeholder('address') })
			.onConflictDoUpdate({ target: members.address, set: { lastSignedInAt: sql`now()` } })
			// Prepared on a Postgres server: every sign-in runs it (db/prepared.ts).
			.prepare('upsert_member')
	);
}

// Built once per database handle: building the statement (drizzle's query builder and SQL text) on every
// sign-in was a measurable part of its CPU (bench/README.md "Figures behind the code").
const upserts = new WeakMap<Database, ReturnType<typeof buildUpsert>>();

/** Creates the member on first sign-in, or records the sign-in time of a returning one (by lowercase address). */
export async function upsertMember(db: Database, address: string): Promise<void> {
	let upsert = upserts.get(db);
	if (!upsert) {
		upsert = buildUpsert(db);
		upserts.set(db, upsert);
	}
	await upsert.execute({ address: address.toLowerCase() });
}

/**
 * Records the locale of a signed-in member's page visit (their notifications speak it); writes only when
 * it changed, so a visit in the same locale as the last is one index read.
 */
export async function recordMemberLocale(db: Database, address: string, locale: string): Promise<void> {
	await db
		.update(members)
		.set({ locale })
		.where(and(eq(members.address, address.toLowerCase()), ne(members.locale, locale)));
}
