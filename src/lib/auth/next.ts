/**
 * Where /setup sends a member after sign-in: the `next` parameter if it names a page of this site,
 * else nowhere (the member stays on /setup). Never an open redirect: only same-origin paths pass.
 */
export function safeNext(value: string | null, origin: string): string | null {
	// A path only: `//host`, `/\host` and `\\host` are other sites to a browser; control characters are tricks.
	// eslint-disable-next-line no-control-regex -- refusing control characters is the point
	if (!value || !value.startsWith('/') || /^\/[/\\]|\\|[\u0000-\u001f\u007f]/.test(value)) return null;
	let url: URL;
	try {
		url = new URL(value, origin);
	} catch {
		return null;
	}
	if (url.origin !== origin || url.pathname === '/setup') return null;
	return url.pathname + url.search + url.hash;
}
