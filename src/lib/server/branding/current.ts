import { DEFAULT_BRANDING, type Branding } from '$lib/branding/branding';
import { community } from '$lib/branding/community';
import { brandingIn } from '$lib/branding/saved';
import { runtime } from '../platform/runtime';
import { savedCommunity } from './settings';
import { m } from '$lib/paraglide/messages';
import type { Locale } from '$lib/paraglide/runtime';

/**
 * The community's branding in `locale` as this request should show it: the saved look (/admin/settings)
 * over the build's. Never fails: without a database it is the last look read, or the build's.
 */
export async function communityIn(locale: string): Promise<Branding> {
	const { database } = runtime();
	const branding = brandingIn(community, await savedCommunity(database.db, { ready: () => database.ready() }), locale);
	// A community that wrote no description shows the portal's own, in the page's language (issue 61's walk:
	// the English default on every locale's home page).
	if (branding.description === DEFAULT_BRANDING.description)
		return { ...branding, description: m.community_default_description({}, { locale: locale as Locale }) };
	return branding;
}
