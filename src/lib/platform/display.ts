import { localHref, splitLocalePath } from '$lib/i18n/locales';
/**
 * What the header and pages show on every page, kept apart from chain.ts and next.ts so the home
 * page ships only these few bytes (docs/design-system.md "Budget").
 */

/** `0x1234…abcd`. */
export function shortAddress(address: string): string {
	return address.length > 10 ? `${address.slice(0, 6)}…${address.slice(-4)}` : address;
}

/** The /setup link that brings the member back to `path` after sign-in (checked there by safeNext). */
export function setupHref(path: string): string {
	const { path: unprefixed } = splitLocalePath(path);
	const setup = unprefixed === '/' || unprefixed === '/setup' ? '/setup' : `/setup?next=${encodeURIComponent(path)}`;
	return localHref(setup);
}
