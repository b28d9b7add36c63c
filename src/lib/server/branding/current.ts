import type { Branding } from '$lib/branding/branding';
import { community } from '$lib/branding/community';
import { brandingIn } from '$lib/branding/saved';
import { runtime } from '../platform/runtime';
import { savedCommunity } from './settings';

/**
 * The community's branding in `locale` as this request should show it: the saved look (/admin/settings)
 * over the build's. Never fails: without a database it is the last look read, or the build's.
 */
export async function communityIn(locale: string): Promise<Branding> {
	const { database } = runtime();
	return brandingIn(community, await savedCommunity(database.db, { ready: () => database.ready() }), locale);
}
