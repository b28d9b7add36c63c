import { localizedPath, splitLocalePath, type Locale } from '$lib/i18n/locales';

// C0 controls and DEL: a browser drops tabs and newlines from a URL, so they hide other spellings.
// eslint-disable-next-line no-control-regex -- refusing control characters is the point
const CONTROL = /[\u0000-\u001f\u007f]/;
// A path a browser reads as another host: `//host`, `/\host` (a backslash is a slash to it).
const OTHER_HOST = /^\/[/\\]/;
// A slash or backslash spelt with percent escapes, which a later decoding turns into the above.
const ENCODED_SLASH = /%(?:2f|5c)/i;

/**
 * Where /setup sends a member after sign-in: the `next` parameter if it names a page of this site,
 * else nowhere (the member stays on /setup). Never an open redirect: the value is parsed as a browser
 * would (resolved against this origin), once as sent and once percent-decoded, and both must be a
 * path of this origin that does not start with `//` or `/\` after normalisation (`/.//host` would).
 */
export function safeNext(value: string | null, origin: string): string | null {
	if (!value || !value.startsWith('/')) return null;
	let decoded: string;
	try {
		decoded = decodeURIComponent(value);
	} catch {
		return null;
	}
	let kept: URL | null = null;
	for (const spelling of [value, decoded]) {
		if (CONTROL.test(spelling) || spelling.includes('\\') || OTHER_HOST.test(spelling)) return null;
		const url = sameOriginPath(spelling, origin);
		if (!url) return null;
		kept ??= url;
	}
	if (!kept || ENCODED_SLASH.test(kept.pathname)) return null;
	// Under a locale prefix too: `/es//evil.example` is `//evil.example` once the prefix is taken off.
	const { path } = splitLocalePath(kept.pathname);
	if (OTHER_HOST.test(path) || path === '/setup') return null;
	return kept.pathname + kept.search + kept.hash;
}

/**
 * Where /setup in `locale` sends a member after sign-in: safeNext's page, in the locale of the /setup page
 * they signed in on (docs/decisions/0043-translations-by-url-prefix.md). A `next` without a prefix, or with
 * another one, still lands in the language the member was reading: the switcher on /setup changes both.
 */
export function nextPage(value: string | null, origin: string, locale: Locale): string | null {
	const kept = safeNext(value, origin);
	return kept === null ? null : localizedPath(kept, locale);
}

/** `path` resolved against `origin` as a browser's URL parser does, or null if it leaves the origin or becomes `//…`. */
function sameOriginPath(path: string, origin: string): URL | null {
	let url: URL;
	try {
		url = new URL(path, origin);
	} catch {
		return null;
	}
	return url.origin === origin && !OTHER_HOST.test(url.pathname) ? url : null;
}
