import { randomBytes } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import type { Database } from '../../src/lib/server/db/client';
import { applicationEvents, applications, members } from '../../src/lib/server/db/schema';
import type { SignedInMember } from '../../src/lib/server/auth/guards';

/** A fresh random lowercase address, so tests never share rate-limit counters. */
export const randomAddress = () => `0x${randomBytes(20).toString('hex')}`;

export const randomTxHash = () => `0x${randomBytes(32).toString('hex')}`;

/** A member row as sign-in would upsert it, and the member the guards would resolve. */
export async function addMember(db: Database, address = randomAddress(), isAdmin = false): Promise<SignedInMember> {
	await db.insert(members).values({ address }).onConflictDoNothing();
	return { address, isAdmin };
}

export const adminMember = (address = randomAddress()): SignedInMember => ({ address, isAdmin: true });

/** An application row put straight into the given states (test setup, not under test). */
export async function seedApplication(
	db: Database,
	applicant: string,
	states: Partial<{ review: string; allowlist: string; distribution: string }> = {}
) {
	const [row] = await db
		.insert(applications)
		.values({ applicantAddress: applicant, displayName: 'Ada', motivation: 'I build things.', ...(states as object) })
		.returning();
	return row!;
}

export async function applicationById(db: Database, id: string) {
	const [row] = await db.select().from(applications).where(eq(applications.id, id));
	return row;
}

export async function eventsOf(db: Database, id: string) {
	return db
		.select()
		.from(applicationEvents)
		.where(eq(applicationEvents.applicationId, id))
		.orderBy(applicationEvents.id);
}

export async function countRows(db: Database, table: 'applications' | 'application_events' | 'check_ins') {
	const result = await db.execute(sql.raw(`select count(*)::int as n from ${table}`));
	const rows = Array.isArray(result) ? result : (result as { rows: { n: number }[] }).rows;
	return Number((rows[0] as { n: number }).n);
}
