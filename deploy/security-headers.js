// @ts-check
// The security headers of every deployment (docs/security.md), in one place: svelte.config.js takes
// the Content-Security-Policy from here, the Node server (deploy/server.js), the Vercel build
// (deploy/adapter.js), the nginx template (deploy/nginx/render.js) and the app's handle the rest.

/** @typedef {NonNullable<NonNullable<import('@sveltejs/kit').KitConfig['csp']>['directives']>} Directives */

/**
 * What WalletConnect's client and its QR code modal reach (Reown's CSP guidance, narrowed to what the
 * connector uses): the relay (wss), the verify service (fetch and an iframe), telemetry, the modal's
 * wallet list and images, and its font. Allowed only when PUBLIC_WALLETCONNECT_PROJECT_ID is set.
 * @type {Partial<Record<keyof Directives, string[]>>}
 */
export const WALLETCONNECT_SOURCES = {
	'connect-src': [
		'wss://relay.walletconnect.org',
		'https://rpc.walletconnect.org',
		'https://pulse.walletconnect.org',
		'https://verify.walletconnect.org',
		'https://api.web3modal.org'
	],
	'frame-src': ['https://verify.walletconnect.org'],
	'img-src': ['blob:', 'https://api.web3modal.org'],
	'font-src': ['https://fonts.reown.com']
};

/** The Content-Security-Policy, as SvelteKit's `kit.csp.directives` (it adds hashes or nonces to script-src). */
/** @type {Directives} */
export const CSP_DIRECTIVES = {
	'default-src': ['self'],
	'script-src': ['self'],
	// Svelte writes style attributes; no script can run from a style.
	'style-src': ['self', 'unsafe-inline'],
	'img-src': ['self', 'data:'],
	'font-src': ['self'],
	// What the browser code may fetch: the portal's own API; WalletConnect's hosts only when it is configured
	// (WALLETCONNECT_SOURCES, through buildDirectives() and servedPolicy()).
	'connect-src': ['self'],
	'object-src': ['none'],
	'base-uri': ['self'],
	'form-action': ['self'],
	'frame-ancestors': ['none']
};

const keyword = (/** @type {string} */ v) => (['none', 'self'].includes(v) ? `'${v}'` : v);

/**
 * The origin of PUBLIC_COMMUNITY_LOGO_URL when it is an https URL of another site (the header mark and
 * favicon load from there), else null: a path under static/ is 'self' already. The build has validated
 * the value (src/lib/branding/branding.ts); anything that is not an https URL is left to that check.
 * @param {Record<string, string | undefined>} env
 * @returns {string | null}
 */
export function logoOrigin(env) {
	const value = (env.PUBLIC_COMMUNITY_LOGO_URL ?? '').trim();
	if (!value.startsWith('https://')) return null;
	try {
		return new URL(value).origin;
	} catch {
		return null;
	}
}

/**
 * The directives the build gives SvelteKit: CSP_DIRECTIVES widened by WALLETCONNECT_SOURCES and by the
 * community logo's origin (a build-time setting, like the pages that show it). They are the ceiling
 * written into a prerendered page's <meta> policy, which cannot change after the build; the header
 * sent with each page (servedPolicy) narrows them to the running configuration, and a browser enforces both.
 * @param {{ logoOrigin?: string | null }} [options]
 * @returns {Directives}
 */
export function buildDirectives({ logoOrigin = null } = {}) {
	/** @type {Record<string, unknown>} */
	const directives = { ...CSP_DIRECTIVES };
	const extra = { ...WALLETCONNECT_SOURCES };
	if (logoOrigin) extra['img-src'] = [logoOrigin, ...(WALLETCONNECT_SOURCES['img-src'] ?? [])];
	for (const [name, sources] of Object.entries(extra)) {
		const own = /** @type {string[] | undefined} */ (directives[name]) ?? CSP_DIRECTIVES['default-src'] ?? [];
		directives[name] = [...own, ...sources];
	}
	return /** @type {Directives} */ (directives);
}

/**
 * Whether the running configuration offers WalletConnect (the server has validated the id at start).
 * @param {Record<string, string | undefined>} env
 */
export const walletConnectEnabled = (env) => (env.PUBLIC_WALLETCONNECT_PROJECT_ID ?? '').trim() !== '';

/**
 * The policy header to send for a policy SvelteKit built from buildDirectives(): unchanged with
 * WalletConnect, else without WALLETCONNECT_SOURCES (and without a directive only they added).
 * @param {string} policy
 * @param {{ walletConnect: boolean }} options
 * @returns {string}
 */
export function servedPolicy(policy, { walletConnect }) {
	if (walletConnect) return policy;
	// A page's policy differs from the last page's by its nonce only: the rest is read once (the split and
	// the filters below were a part of every page's CPU, issue 60), the nonce put back into it.
	const nonce = NONCE_SOURCE.exec(policy)?.[1];
	const template = nonce ? policy.replaceAll(nonce, NONCE_MARK) : policy;
	let served = servedTemplates.get(template);
	if (served === undefined) {
		served = withoutWalletConnect(template);
		if (servedTemplates.size < SERVED_TEMPLATES_MAX) servedTemplates.set(template, served);
	}
	return nonce ? served.replaceAll(NONCE_MARK, nonce) : served;
}

/** A script nonce as SvelteKit writes one into the policy (base64). */
const NONCE_SOURCE = /'nonce-([A-Za-z0-9+/=]+)'/;
/** Stands for the nonce in a remembered policy: a character no policy header holds. */
const NONCE_MARK = '\u0000';
/** servedPolicy's answers by policy, nonce masked: kit.csp makes a few (a page's, an error page's), never more than this. */
const SERVED_TEMPLATES_MAX = 32;
/** @type {Map<string, string>} */
const servedTemplates = new Map();

/** `policy` without WALLETCONNECT_SOURCES, and without a directive only they made. @param {string} policy */
function withoutWalletConnect(policy) {
	return policy
		.split(';')
		.map((part) => part.trim())
		.filter((part) => part !== '')
		.flatMap((part) => {
			const [name = '', ...values] = part.split(/\s+/);
			const added = WALLETCONNECT_SOURCES[/** @type {keyof Directives} */ (name.toLowerCase())];
			if (!added) return [part];
			if (!(name.toLowerCase() in CSP_DIRECTIVES)) return [];
			return [[name, ...values.filter((v) => !added.includes(v))].join(' ')];
		})
		.join('; ');
}

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
