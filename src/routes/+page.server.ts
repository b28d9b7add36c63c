import { HOME_TEXTS, PROGRAMS_NOW_TEXTS, PULSE_TEXTS } from '$lib/i18n/texts';
import { textsOf } from '$lib/server/i18n/texts';
import type { PageServerLoad } from './$types';

// The home page's words in the page's locale only (src/lib/i18n/texts.ts): its own, the open programmes'
// and the community pulse's. Messages with inputs the browser fills in (a count, a date) stay in its code.
export const load: PageServerLoad = () => ({
	pageTexts: textsOf(HOME_TEXTS),
	programsTexts: textsOf(PROGRAMS_NOW_TEXTS),
	pulseTexts: textsOf(PULSE_TEXTS)
});
