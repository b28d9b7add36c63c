/**
 * A first visit from a browser that prefers another locale is offered it, never sent there (docs/decisions/0043-translations-by-url-prefix.md). Once a visitor picks a language or says no, nobody asks again.
 */
const CHOSEN_KEY = 'portal-locale-chosen';

export function rememberLocaleChosen(): void {
	try {
		localStorage.setItem(CHOSEN_KEY, '1');
	} catch {
		// Storage refused (private mode): the offer may come back; nothing else depends on it.
	}
}

export function localeChosen(): boolean {
	try {
		return localStorage.getItem(CHOSEN_KEY) !== null;
	} catch {
		return true;
	}
}
