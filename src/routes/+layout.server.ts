import { getLocale } from '$lib/paraglide/runtime';
import { communityIn } from '$lib/server/branding/current';
import type { LayoutServerLoad } from './$types';

// The community's name, description, links, accent and logo in the page's locale, as /admin/settings saved
// them (issue 59): every page reads them here, so a save shows on the next request. A change of locale
// reloads the page (the switcher's links), which runs this again.
// (A saved accent's style sheet is written into the head by the server: src/lib/server/branding/accent-style.ts.)
export const load: LayoutServerLoad = async () => ({ community: await communityIn(getLocale()) });
