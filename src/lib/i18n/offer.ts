import type { Locale } from '$lib/paraglide/runtime';

/**
 * A first visit from a browser that prefers another locale is offered it, never sent there (docs/decisions/0043-translations-by-url-prefix.md). Once a visitor picks a language or says no, nobody asks again.
 * The server decides (src/lib/server/i18n/offer.ts, from Accept-Language and this cookie), so a page without
 * scripts (the home page, issue 61) offers and forgets the same way; a page with scripts writes the cookie itself.
 */
export const LOCALE_CHOSEN_COOKIE = 'portal-locale-chosen';
/** A year: the choice outlives a visit. */
export const LOCALE_CHOSEN_MAX_AGE = 365 * 24 * 3600;

/** The offer of another locale, its words already in that locale (the page carries no message code for it). */
export interface LocaleOfferData {
	locale: Locale;
	words: { label: string; offer: string; switch: string; dismiss: string };
}

export function rememberLocaleChosen(): void {
	document.cookie = `${LOCALE_CHOSEN_COOKIE}=1; Path=/; Max-Age=${LOCALE_CHOSEN_MAX_AGE}; SameSite=Lax`;
}
