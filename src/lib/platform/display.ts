import { localHref, localizedPath, splitLocalePath } from '$lib/i18n/locales';
/**
 * What the header and pages show on every page, kept apart from chain.ts and next.ts so the home
 * page ships only these few bytes (docs/design-system.md "Budget").
 */

/** `0x1234…abcd`. */
export function shortAddress(address: string): string {
	return address.length > 10 ? `${address.slice(0, 6)}…${address.slice(-4)}` : address;
}

/**
 * The /setup link, in the page's locale, that brings the member back to `path` after sign-in (checked
 * there by nextPage): `path` with its locale prefix, and always a path of this site (a request path such
 * as `/es//evil.example` comes back as `/es/evil.example`).
 */
export function setupHref(path: string): string {
	const { locale, path: unprefixed } = splitLocalePath(path);
	const back = localizedPath(path, locale);
	const setup = unprefixed === '/' || unprefixed === '/setup' ? '/setup' : `/setup?next=${encodeURIComponent(back)}`;
	return localHref(setup);
}
