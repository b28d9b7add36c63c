import { memberFromAddress, type SignedInMember } from './guards';
import { runtime } from '../platform/runtime';
import { configuredReviewers, reviewerSet } from '../reviews/roster';
import { singleton } from '$lib/platform/singleton';

/** How long a read of the reviewers table is used before the next (as the form version's cache, decision 0040). */
const CACHE_MS = 1000;

const failed = singleton('reviewer set read failed', () => ({ at: 0 }));

/**
 * The member a session's address makes, with the reviewers added on /admin/reviewers (a second old at
 * most, decision 0040). While the database cannot be read, the configured reviewers alone: a page that
 * needs the database answers 503 by itself, and nothing else waits on it.
 */
export async function memberOf(address: string): Promise<SignedInMember> {
	const { config, database } = runtime();
	const lower = address.toLowerCase();
	// An admin or a configured reviewer is one whatever the table says: no read on their requests.
	if (config.adminAddresses.has(lower) || config.reviewerAddresses.has(lower))
		return memberFromAddress(address, config.adminAddresses, config.reviewerAddresses);
	let reviewers = configuredReviewers();
	// After a failed read, the next try waits CACHE_MS: requests that need no database do not wait on it.
	if (Date.now() - failed.get().at >= CACHE_MS) {
		try {
			await database.ready();
			reviewers = await reviewerSet(database.db);
		} catch {
			failed.get().at = Date.now();
		}
	}
	return memberFromAddress(address, config.adminAddresses, reviewers);
}
