import { getLocale } from '$lib/paraglide/runtime';
import { LAYOUT_TEXTS } from '$lib/i18n/texts';
import { communityIn } from '$lib/server/branding/current';
import { textsOf } from '$lib/server/i18n/texts';
import { localeOffer } from '$lib/server/i18n/offer';
import type { LayoutServerLoad } from './$types';

// The community's name, description, links, accent and logo in the page's locale, as /admin/settings saved
// them (issue 59): every page reads them here, so a save shows on the next request. A change of locale
// reloads the page (the switcher's links), which runs this again.
// (A saved accent's style sheet is written into the head by the server: src/lib/server/branding/accent-style.ts.)
// The header's words come with them, in the page's locale only (src/lib/i18n/texts.ts), and the offer of
// the browser's preferred language when it is another (src/lib/server/i18n/offer.ts).
export const load: LayoutServerLoad = async ({ cookies, request }) => ({
	community: await communityIn(getLocale()),
	texts: textsOf(LAYOUT_TEXTS),
	offer: localeOffer(request, cookies, getLocale())
});
