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
 * @returns {string[]}
 */
export function headerOnlyDirectives() {
	const keyword = (/** @type {string} */ v) => (['none', 'self'].includes(v) ? `'${v}'` : v);
	return [`frame-ancestors ${(CSP_DIRECTIVES['frame-ancestors'] ?? []).map(keyword).join(' ')}`];
}
