import { memberFromAddress, type SignedInMember } from './guards';
import { runtime } from '../platform/runtime';
import { teamGrants, TEAM_CACHE_MS } from '../team/team';
import { singleton } from '$lib/platform/singleton';

const failed = singleton('team read failed', () => ({ at: 0 }));

/**
 * The member a session's address makes (issue 59): ADMIN_ADDRESSES are owners, REVIEWER_ADDRESSES
 * reviewers of every programme, and the team's rows (`team_members`, read at most once a second in a
 * process) add roles, so a change shows on the address's next request without signing in again. While
 * the database cannot be read, the configuration alone: a page that needs the database answers 503 by
 * itself, and nothing else waits on it.
 */
export async function memberOf(address: string): Promise<SignedInMember> {
	const { config, database } = runtime();
	const lower = address.toLowerCase();
	// A configured owner is one whatever the table says: no read on their requests.
	if (config.adminAddresses.has(lower)) return memberFromAddress(address, config.adminAddresses);
	let grants: Awaited<ReturnType<typeof teamGrants>> = new Map();
	// After a failed read, the next try waits TEAM_CACHE_MS: requests that need no database do not wait on it.
	if (Date.now() - failed.get().at >= TEAM_CACHE_MS) {
		try {
			await database.ready();
			grants = await teamGrants(database.db);
		} catch {
			failed.get().at = Date.now();
		}
	}
	return memberFromAddress(address, config.adminAddresses, config.reviewerAddresses, grants.get(lower) ?? []);
}
