import { page } from '$app/state';
import type { Branding } from './branding';
import { community } from './community';

/**
 * The community's branding for the page being shown: what the server read for this request (the root
 * layout's data: `/admin/settings` saves it, in the page's locale), else the build's. Read it in markup
 * or a `$derived` so a save shows on the next navigation.
 */
export function currentCommunity(): Branding {
	return (page.data as { community?: Branding }).community ?? community;
}
