import { memberFromAddress, type SignedInMember } from './guards';
import { runtime } from '../platform/runtime';
import { configuredReviewers, reviewerSet } from '../reviews/roster';

/**
 * The member a session's address makes, with the reviewers added on /admin/reviewers (a second old at
 * most, decision 0040). While the database cannot be read, the configured reviewers alone: a page that
 * needs the database answers 503 by itself, and nothing else waits on it.
 */
export async function memberOf(address: string): Promise<SignedInMember> {
	const { config, database } = runtime();
	let reviewers: ReadonlySet<string>;
	try {
		await database.ready();
		reviewers = await reviewerSet(database.db);
	} catch {
		reviewers = configuredReviewers();
	}
	return memberFromAddress(address, config.adminAddresses, reviewers);
}
