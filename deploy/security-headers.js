// @ts-check
// The security headers of every deployment (docs/security.md), in one place: svelte.config.js takes
// the Content-Security-Policy from here, the Node server (deploy/server.js), the Vercel build
// (deploy/adapter.js), the nginx template (deploy/nginx/render.js) and the app's handle the rest.

/** The Content-Security-Policy, as SvelteKit's `kit.csp.directives` (it adds hashes or nonces to script-src). */
/** @type {NonNullable<NonNullable<import('@sveltejs/kit').KitConfig['csp']>['directives']>} */
export const CSP_DIRECTIVES = {
	'default-src': ['self'],
	'script-src': ['self'],
	// Svelte writes style attributes; no script can run from a style.
	'style-src': ['self', 'unsafe-inline'],
	'img-src': ['self', 'data:'],
	'font-src': ['self'],
	// What the browser code may fetch: the portal's own API. Wallet relays (WalletConnect) are added here.
	'connect-src': ['self'],
	'object-src': ['none'],
	'base-uri': ['self'],
	'form-action': ['self'],
	'frame-ancestors': ['none']
};

/** Sent with every answer. */
export const STATIC_HEADERS = Object.freeze({
	'X-Content-Type-Options': 'nosniff',
	'Referrer-Policy': 'strict-origin-when-cross-origin'
});

/** Sent with every answer over https. */
export const HSTS = 'max-age=31536000; includeSubDomains';

/** Pages rendered per request (member and admin pages, their __data.json) are never stored by caches. */
export const PRIVATE_NO_STORE = 'private, no-store';

/**
 * The directives a <meta> policy cannot carry (SvelteKit drops them from a prerendered page's <meta>),
 * as header text: the server adds them to a prerendered page's policy.
 * @param {readonly string[]} [safeAppOrigins] SAFE_APP_ORIGINS (parseSafeAppOrigins); empty: the contract's 'none'
 * @returns {string[]}
 */
export function headerOnlyDirectives(safeAppOrigins = []) {
	const keyword = (/** @type {string} */ v) => (['none', 'self'].includes(v) ? `'${v}'` : v);
	const ancestors = safeAppOrigins.length > 0 ? safeAppOrigins : (CSP_DIRECTIVES['frame-ancestors'] ?? []);
	return [`frame-ancestors ${ancestors.map(keyword).join(' ')}`];
}

const LOOPBACK = /^(localhost|\[::1\]|127(\.\d{1,3}){3})$/;
// Letters, digits, hyphens and dots, or a bracketed IPv6 address: nothing a policy would read as syntax
// (the URL parser lets through ' ; , and more in a host name).
const HOST_NAME = /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$|^\[[0-9a-f:.]+\]$/;

/**
 * SAFE_APP_ORIGINS (docs/security.md "Framing by Safe{Wallet}", decision 0022): the origins that may
 * show the portal in a frame, as a Safe App. Comma-separated; each an `https://host[:port]` origin and
 * nothing more (http:// only for a loopback host, for tests). Unset or blank: none, and every page
 * keeps `frame-ancestors 'none'`.
 * @param {string | undefined} raw
 * @returns {string[]} the origins, each once
 * @throws {Error} naming every refused entry
 */
export function parseSafeAppOrigins(raw) {
	const entries = (raw ?? '')
		.split(',')
		.map((e) => e.trim())
		.filter((e) => e !== '');
	const problems = entries.map(originProblem).filter(Boolean);
	if (problems.length > 0) throw new Error(problems.join('; '));
	return [...new Set(entries.map((e) => new URL(e).origin))];
}

/** Why `entry` is not an origin a frame may be opened from, or null. @param {string} entry */
function originProblem(entry) {
	if (entry.includes('*')) return `"${entry}" has a wildcard; list each origin`;
	let url;
	try {
		url = new URL(entry);
	} catch {
		return `"${entry}" is not an origin (https://host[:port])`;
	}
	if (!HOST_NAME.test(url.hostname)) return `"${entry}" has a host name that is not letters, digits, hyphens and dots`;
	if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.test(url.hostname)))
		return `"${entry}" must be https:// (http:// only for a loopback host)`;
	// The origin alone: no path (not even "/"), query, fragment or user info.
	if (url.origin !== entry.toLowerCase().replace(/:443$|(?<=^http:\/\/[^/]*):80$/, ''))
		return `"${entry}" must be an origin only (scheme://host[:port]), without path, query or user info`;
	return null;
}

/**
 * `policy` with its frame-ancestors directive naming `safeAppOrigins` (unchanged when there are none).
 * @param {string} policy a Content-Security-Policy header value
 * @param {readonly string[]} safeAppOrigins
 */
export function withFrameAncestors(policy, safeAppOrigins) {
	if (safeAppOrigins.length === 0) return policy;
	const [directive] = headerOnlyDirectives(safeAppOrigins);
	return /frame-ancestors [^;]*/.test(policy)
		? policy.replace(/frame-ancestors [^;]*/, directive ?? '')
		: `${policy}; ${directive}`;
}

/** The Safe App manifest (docs/sign-in.md): Safe{Wallet} fetches it from another origin. */
export const SAFE_APP_MANIFEST_PATH = '/manifest.json';
export const SAFE_APP_MANIFEST_HEADERS = Object.freeze({ 'Access-Control-Allow-Origin': '*' });
