import { desc, inArray } from 'drizzle-orm';
import type { Database } from '../db/client';
import { applications } from '../db/schema';
import { ensNames } from '../team/ens';
import { teamNamesOf } from '../team/names';
import type { RpcEndpoint } from '../platform/endpoints';

/** Most addresses one page names at once (a page of votes, assignments, history and notes). */
const MAX_NAMES = 200;

/**
 * How the portal names a reviewer, an admin or an author beside their short address, by lower-case
 * address: the name a team member set for the team (issue 59, `team_names`), else their ENS name where
 * ENS_RPC_URL is set (`ens`, runtime().chain.ens, passed by the route; reverse record verified forward, `team/ens.ts`: cached, waited for at most a
 * second), else the display name on their newest application (issue 61). Someone with none stays an
 * address. Two statements (`team_names`' key, `applications_applicant_idx`).
 */
export async function displayNames(
	db: Database,
	ens: RpcEndpoint | null,
	addresses: readonly string[]
): Promise<Record<string, string>> {
	const wanted = [...new Set(addresses.map((a) => a.toLowerCase()))].slice(0, MAX_NAMES);
	if (wanted.length === 0) return {};
	const [rows, team, named] = await Promise.all([
		db
			.selectDistinctOn([applications.applicantAddress], {
				address: applications.applicantAddress,
				name: applications.displayName
			})
			.from(applications)
			.where(inArray(applications.applicantAddress, wanted))
			.orderBy(applications.applicantAddress, desc(applications.createdAt)),
		teamNamesOf(db, wanted),
		ensNames(ens, wanted)
	]);
	return { ...Object.fromEntries(rows.map((r) => [r.address, r.name])), ...named, ...team };
}
