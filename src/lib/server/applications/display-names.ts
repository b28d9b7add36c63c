import { desc, inArray } from 'drizzle-orm';
import type { Database } from '../db/client';
import { applications } from '../db/schema';

/** Most addresses one page names at once (a page of votes, assignments, history and notes). */
const MAX_NAMES = 200;

/**
 * The display names members gave on their newest application, by lower-case address: how the portal
 * names a reviewer, an admin or an author beside their short address (issue 61). A member who never
 * applied has none and stays an address. One statement (`applications_applicant_idx`).
 */
export async function displayNames(db: Database, addresses: readonly string[]): Promise<Record<string, string>> {
	const wanted = [...new Set(addresses.map((a) => a.toLowerCase()))].slice(0, MAX_NAMES);
	if (wanted.length === 0) return {};
	const rows = await db
		.selectDistinctOn([applications.applicantAddress], {
			address: applications.applicantAddress,
			name: applications.displayName
		})
		.from(applications)
		.where(inArray(applications.applicantAddress, wanted))
		.orderBy(applications.applicantAddress, desc(applications.createdAt));
	return Object.fromEntries(rows.map((r) => [r.address, r.name]));
}
