import type { Handle } from '@sveltejs/kit';
import { building } from '$app/environment';
import { getRequestEvent } from '$app/server';
import { baseLocale, getLocale, overwriteServerAsyncLocalStorage, type Locale } from '$lib/paraglide/runtime';
import { readRequestLocaleWith, splitLocalePath } from '$lib/i18n/locales';
import { isApiPath, routedPath } from '../platform/http';
import { recordMemberLocale } from '../auth/members';
import { runtime } from '../platform/runtime';

type Store = { locale?: Locale; origin?: string; messageCalls?: Set<string> };

/**
 * Each request's locale and origin, by its `locals`, read through SvelteKit's own request store
 * (`getRequestEvent`, itself an AsyncLocalStorage) rather than a second AsyncLocalStorage: Node 20 copies
 * every enabled storage onto every promise a request creates, and a store of our own was a second copy of
 * each and a second `run` a request (bench/README.md "Figures behind the code").
 */
const stores = new WeakMap<App.Locals, Store>();

/** The store of the request being handled; none outside a request (the delivery worker, start-up). */
function currentStore(): Store | undefined {
	let locals: App.Locals;
	try {
		({ locals } = getRequestEvent());
	} catch {
		return undefined;
	}
	return stores.get(locals);
}

// Paraglide's getLocale() reads the request's locale from here while a page renders on the server; it
// never runs a store itself (its middleware is not used: localize below sets the locale).
overwriteServerAsyncLocalStorage({
	getStore: currentStore,
	run: () => {
		throw new Error('localize sets the request locale; Paraglide runs no store of its own here.');
	}
});
// And localHref (src/lib/i18n/locales.ts) through Paraglide's getLocale.
readRequestLocaleWith(getLocale);

/**
 * The page's locale comes from its path (src/lib/i18n/locales.ts): messages render in it, `<html>` gets
 * its `lang` and `dir` (`localeOfRequest`, which src/hooks.server.ts fills the template with), and a
 * signed-in member's visit records it for their notifications (before a form post writes any: submitting
 * from /ar/apply is answered in Arabic). The API is not localized (its `message`s are English,
 * docs/decisions/0043-translations-by-url-prefix.md).
 */
export const localize: Handle = async ({ event, resolve }) => {
	if (isApiPath(event.url.pathname)) return resolve(event);
	const { locale } = splitLocalePath(routedPath(event.url.pathname));
	const member = event.locals.member;
	// A visit is a page, the data a navigation reads, or a form posted from a page: each in its locale,
	// and only the member's own: another site's link, redirect or form does not change their language.
	if (!building && member && ownRequest(event.request, event.url.origin)) {
		try {
			const { database } = runtime();
			await database.ready();
			await recordMemberLocale(database.db, member.address, locale);
		} catch {
			// The page answers a database fault itself; a locale not recorded is not one.
		}
	}
	stores.set(event.locals, { locale, origin: event.url.origin });
	return resolve(event);
};

/** The locale `localize` found for this request (its `locals`); the base locale where it found none (the API). */
export const localeOfRequest = (locals: App.Locals): Locale => stores.get(locals)?.locale ?? baseLocale;

/**
 * Whether the member made this request from the portal itself or by hand: Sec-Fetch-Site `same-origin`
 * (its links, navigations and forms) or `none` (an address typed, a bookmark); where a browser sends no
 * Sec-Fetch-Site, an Origin that is the portal's. Any other site's request does not count (issue 54).
 */
export function ownRequest(request: Request, origin: string): boolean {
	const site = request.headers.get('sec-fetch-site');
	if (site !== null) return site === 'same-origin' || site === 'none';
	return request.headers.get('origin') === origin;
}
