import { sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { members } from '../db/schema';

/** Creates the member on first sign-in, or records the sign-in time of a returning one (by lowercase address). */
export async function upsertMember(db: Database, address: string): Promise<void> {
	await db
		.insert(members)
		.values({ address: address.toLowerCase() })
		.onConflictDoUpdate({ target: members.address, set: { lastSignedInAt: sql`now()` } })
		// Prepared on a Postgres server: every sign-in runs it (db/prepared.ts).
		.prepare('upsert_member')
		.execute();
}
