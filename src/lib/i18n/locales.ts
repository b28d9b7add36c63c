/**
 * The portal's locales and where a page's locale comes from: its path (docs/decisions/0043-translations-by-url-prefix.md). The base locale has no prefix (`/apply`); the others are the path's first segment,
 * spelled exactly as here (`/es/apply`, `/zh-Hans/setup`). Only pages are localized: a prefixed API,
 * file or operator path is no route at all (src/hooks.ts).
 */
import type { Locale } from '$lib/paraglide/runtime';

export type { Locale };

/**
 * project.inlang's locales and base locale, as Paraglide's runtime has them (locales.test.ts checks that they
 * are the same): written here so that the code every page loads does not import the runtime, whose locale
 * resolution the browser does not need (`currentLocale`; issue 61).
 */
export const baseLocale = 'en' satisfies Locale;
export const locales = ['en', 'es', 'pt-BR', 'zh-Hans', 'ar'] as const satisfies readonly Locale[];

/** Written right to left. */
const RIGHT_TO_LEFT: ReadonlySet<Locale> = new Set(['ar']);

/** Each locale's name in its own language, as the switcher and the offer show it. */
export const LOCALE_NAMES: Readonly<Record<Locale, string>> = {
	en: 'English',
	es: 'Español',
	'pt-BR': 'Português (Brasil)',
	'zh-Hans': '简体中文',
	ar: 'العربية'
};

export const textDirection = (locale: Locale): 'ltr' | 'rtl' => (RIGHT_TO_LEFT.has(locale) ? 'rtl' : 'ltr');

export const isLocale = (value: unknown): value is Locale =>
	typeof value === 'string' && (locales as readonly string[]).includes(value);

/** Paths that are not pages, so never under a locale prefix. */
const NOT_PAGES = /^\/(?:api|metrics|healthz|favicon\.svg|manifest\.json|logo|service-worker\.js|_app)(?:\/|$)/;

/**
 * A decoded path's locale and the path without its prefix; `page` false when a prefix stands before
 * something that is not a page (`/es/api/...`), which is then no route.
 */
export function splitLocalePath(path: string): { locale: Locale; path: string; page: boolean } {
	const second = path.indexOf('/', 1);
	const first = second === -1 ? path.slice(1) : path.slice(1, second);
	if (first === baseLocale || !isLocale(first)) return { locale: baseLocale, path, page: true };
	const rest = second === -1 ? '/' : path.slice(second);
	return { locale: first, path: rest, page: !NOT_PAGES.test(rest) };
}

// Slashes and backslashes at a path's start: a browser reads `//host` and `/\host` as another site.
const LEADING_SLASHES = /^[/\\]+/;

/**
 * A root-relative page path (its query and hash kept) in `locale`: `/apply?x` becomes `/es/apply?x`, `/`
 * becomes `/es`. Always a path of this site, whatever it is given: the paths it is given may come from
 * the request (`/es//evil.example` is `/evil.example` in English, never `//evil.example`).
 */
export function localizedPath(href: string, locale: Locale): string {
	const cut = href.search(/[?#]/);
	const [pathname, rest] = cut === -1 ? [href, ''] : [href.slice(0, cut), href.slice(cut)];
	const path = splitLocalePath(pathname.replace(LEADING_SLASHES, '/')).path.replace(LEADING_SLASHES, '/');
	if (locale === baseLocale) return path + rest;
	return (path === '/' ? `/${locale}` : `/${locale}${path}`) + rest;
}

let requestLocale: () => Locale = () => baseLocale;

/**
 * How the server reads the request's locale: Paraglide's `getLocale`, which src/lib/server/i18n/localize.ts
 * hands here. This module does not import Paraglide's runtime itself: the code every page loads would then
 * carry the runtime's locale resolution, which the browser does not need (issue 61).
 */
export function readRequestLocaleWith(read: () => Locale): void {
	requestLocale = read;
}

/**
 * The locale of the page being shown. On the server, the request's; in the browser, the `<html lang>` the
 * server wrote (a change of locale loads the page anew).
 */
export const currentLocale = (): Locale => {
	// Vite's compile-time flag: the browser's build keeps only the second branch.
	if (import.meta.env.SSR) return requestLocale();
	const lang = document.documentElement.lang;
	return isLocale(lang) ? lang : baseLocale;
};

/** A page path in the locale of the page being shown (every internal link and redirect goes through it). */
export const localHref = (href: string): string => localizedPath(href, currentLocale());
