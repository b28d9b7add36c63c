/**
 * What the browser needs of Paraglide's runtime, and no more: the page's locale, read from its path the
 * way src/hooks.ts reads it. Paraglide's own runtime resolves strategies, cookies and URL patterns this
 * portal does not use, on every page (its size: bench/README.md "Figures behind the code"). vite.config.ts points the client build's
 * imports of `src/lib/paraglide/runtime.js` here; the server keeps Paraglide's (AsyncLocalStorage).
 */
import type { Locale } from '$lib/paraglide/runtime';

// As project.inlang/settings.json says (client-runtime.test.ts compares them with Paraglide's).
export const baseLocale: Locale = 'en';
export const locales: readonly Locale[] = ['en', 'es', 'pt-BR', 'zh-Hans', 'ar'];
export type { Locale };
export const experimentalStaticLocale: Locale | undefined = undefined;

export function getLocale(): Locale {
	const second = location.pathname.indexOf('/', 1);
	const first = second === -1 ? location.pathname.slice(1) : location.pathname.slice(1, second);
	return (locales as readonly string[]).includes(first) ? (first as Locale) : baseLocale;
}
