// @ts-check
// JavaScript shipped per page (gzip level 9, file by file as the server sends them) after the build:
// every chunk the served HTML of / and /setup (a signed-out visit to the built server) preloads or imports
// plus their static imports; `/setup + wallet`
// adds what /setup loads in onMount (followed through dynamic imports) for a wallet in the browser;
// `WalletConnect (on choice)` is what picking WalletConnect loads on top, reported apart. Also checks that
// `/` holds no wallet code and that no chunk the injected flow loads carries the `siwe` parser.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { startPortal } from '../harness.js';

// Strings only wallet code carries (wagmi's and viem's error texts) and the `siwe` parser's names.
// (Not `eip6963:`: /setup's wallet detection, src/lib/wallet/detect.ts, names the event without the library.)
const WALLET_MARKERS = ['wagmi.sh', '@wagmi/core@', 'viem@'];
const SIWE_MARKERS = ['SiweMessage', 'apg-js', 'SiweError'];
const STATIC_IMPORT = /(?:^|[;\s}])(?:import|export)\s*(?:[\w${},*\s]+from\s*)?["']([^"']+\.js)["']/g;
const DYNAMIC_IMPORT = /import\(["'`]([^"'`]+\.js)["'`]\)/g;
// A string only src/lib/wallet/connectors/walletconnect.ts carries: its chunk is where WalletConnect starts.
const WALLETCONNECT_ENTRY = 'Could not reach WalletConnect';

// Strings only the Safe App's chunks carry (the Safe Apps SDK's method name, wagmi's Safe connector option):
// loaded only inside a frame, measured on their own.
// The last is the id of SignIn's Safe notice (src/lib/components/sign-in/SafeNotice.svelte), loaded only for a Safe.
const SAFE_MARKERS = ['getSafeInfo', 'unstable_getInfoTimeout', 'safe-cannot-sign-in'];
// Strings only the chunks of src/lib/components/sign-in/NoWallet.svelte (a computer's browser: a wallet's
// download page, src/lib/components/sign-in/wallets.ts) and NoWalletPhone.svelte (a wallet app's link,
// src/lib/wallet/deep-links.ts) carry; their words come with /setup's data. Loaded only when no wallet is
// found, each on its own kind of device. The computer's is measured (as tests/e2e/setup-no-wallet.spec.ts
// does); neither counts in the wallet flow.
const NO_WALLET_ENTRY = 'metamask.io/download';
const NO_WALLET_PHONE_ENTRY = 'link.trustwallet.com';

/**
 * Every module reachable from `start` through static imports (and dynamic ones when `dynamic`), except
 * the files `skip` names (and what only they import).
 * @param {string[]} start
 * @param {boolean} dynamic
 * @param {Set<string>} [seen]
 * @param {(code: string) => boolean} [skip]
 */
function closure(start, dynamic, seen = new Set(), skip = () => false) {
	const queue = [...start];
	for (let file; (file = queue.pop()) !== undefined;) {
		if (seen.has(file) || !existsSync(file)) continue;
		const code = readFileSync(file, 'utf8');
		if (skip(code)) continue;
		seen.add(file);
		for (const m of code.matchAll(STATIC_IMPORT)) queue.push(path.resolve(path.dirname(file), m[1] ?? ''));
		if (dynamic)
			for (const m of code.matchAll(DYNAMIC_IMPORT)) queue.push(path.resolve(path.dirname(file), m[1] ?? ''));
	}
	return seen;
}

/**
 * What loading `entries` adds to the files in `loaded`: the walk stops at a loaded file, whose own
 * dynamic imports are not this choice's (the shared chunk holds the root layout's, for one).
 * @param {string[]} entries
 * @param {Set<string>} loaded
 */
function onTop(entries, loaded) {
	return new Set([...closure(entries, true, new Set(loaded))].filter((f) => !loaded.has(f)));
}

/**
 * What a served page loads before it runs: its modulepreloads (the `Link` header SvelteKit sends with a
 * page rendered per request, or `<link>`s in the HTML) and the HTML's inline import()s.
 * @param {string} root
 * @param {string} text  the `Link` header, a line, then the HTML
 */
function pageModules(root, text) {
	const entries = [
		...text.matchAll(/<([^>]+\.js)>; rel="modulepreload"/g),
		...text.matchAll(/<link href="([^"]+\.js)" rel="modulepreload"/g),
		...text.matchAll(/import\("([^"]+\.js)"\)/g)
	].map((m) => path.join(root, 'client', path.posix.normalize(m[1] ?? '')));
	return closure(entries, false);
}

/**
 * The HTML of `/` and `/setup` in every locale as the built server in `root` sends it to a signed-out visitor
 * (no page is prerendered: each shows the community's look as saved, issue 59), on an empty database.
 * @param {string} root
 * @returns {Promise<Map<string, string>>} path → its `Link` header, a line, then its HTML
 */
async function servedPages(root) {
	/** @type {unknown} */
	const read = JSON.parse(readFileSync(path.resolve('project.inlang/settings.json'), 'utf8'));
	const settings = /** @type {{ baseLocale: string, locales: string[] }} */ (read);
	const paths = settings.locales.flatMap((l) =>
		l === settings.baseLocale ? ['/', '/setup'] : [`/${l}`, `/${l}/setup`]
	);
	const portal = await startPortal({}, { profile: false, args: [path.join(root, 'index.js')] });
	try {
		const pages = new Map();
		for (const p of paths) {
			const answer = await fetch(`${portal.url}${p}`, { headers: { accept: 'text/html' } });
			if (answer.status !== 200) throw new Error(`GET ${p}: ${answer.status}`);
			pages.set(p, `${answer.headers.get('link') ?? ''}\n${await answer.text()}`);
		}
		return pages;
	} finally {
		await portal.stop();
	}
}

/** @param {Set<string>} files */
function measure(files) {
	let raw = 0;
	let gzip = 0;
	/** @type {Set<string>} */
	const markers = new Set();
	for (const file of files) {
		const code = readFileSync(file);
		raw += code.length;
		gzip += gzipSync(code, { level: 9 }).length;
		for (const m of WALLET_MARKERS) if (code.includes(m)) markers.add(m);
	}
	return { chunks: files.size, raw, gzip, markers: [...markers] };
}

/**
 * @param {string} dir
 * @returns {string[]}
 */
function allClientJs(dir) {
	return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
		d.isDirectory() ? allClientJs(path.join(dir, d.name)) : d.name.endsWith('.js') ? [path.join(dir, d.name)] : []
	);
}

/**
 * @typedef {object} PageSize
 * @property {string} page
 * @property {number} chunks
 * @property {number} raw  bytes
 * @property {number} gzip  bytes, file by file at level 9
 * @property {string[]} markers  wallet code found
 * @property {number} limit  the target, gzip bytes
 * @property {boolean} [walletFree]  whether the page must carry no wallet code
 * @property {boolean} ok  whether the targets hold
 */

/**
 * Whether every locale's `/` and `/setup` load the same modules as the base locale's: the bundles are shared
 * and the locale picks its strings at run time, so the sizes measured on the base locale's pages hold for
 * every locale. Locales whose pages load other modules are listed in `differing`.
 * @param {string} root
 * @param {Map<string, string>} pages
 * @param {Set<string>} home
 * @param {Set<string>} setup
 */
function localeBundles(root, pages, home, setup) {
	const same = (/** @type {Set<string>} */ a, /** @type {Set<string>} */ b) =>
		a.size === b.size && [...a].every((f) => b.has(f));
	const locales = [...pages.keys()].filter((p) => p !== '/setup' && /^\/[^/]+$/.test(p)).map((p) => p.slice(1));
	const differing = locales.filter(
		(l) =>
			!same(pageModules(root, pages.get(`/${l}`) ?? ''), home) ||
			!same(pageModules(root, pages.get(`/${l}/setup`) ?? ''), setup)
	);
	return { checked: locales, differing };
}

/** The note printed under the sizes. @param {{ checked: string[], differing: string[] }} locales */
export function localeNote({ checked, differing }) {
	if (checked.length === 0) return 'locales: no other locale (a build before translations)';
	return differing.length === 0
		? `every locale loads the same bundles (the locale picks its strings at run time): / and /setup of ${checked.join(', ')} load the same modules as the base locale's, so these sizes hold for every locale`
		: `NOT the same bundles for every locale: ${differing.join(', ')} load other modules than the base locale's / or /setup (checked: ${checked.join(', ')})`;
}

/**
 * Figures per page; `ok` says whether the issue's targets hold; `locales`, whether every locale loads the same.
 * @returns {Promise<{ pages: PageSize[], siwe: string[], locales: { checked: string[], differing: string[] } }>}
 */
export async function jsSizes(root = path.resolve('build')) {
	const served = await servedPages(root);
	const home = pageModules(root, served.get('/') ?? '');
	const setup = pageModules(root, served.get('/setup') ?? '');
	// The /setup page node is the last of the nodes its HTML names (`node_ids`: the layouts', then the page's).
	// Its code may sit in a chunk of its own, the node re-exporting it (vite.config.ts, the `setup-page` group):
	// the dynamic imports of the files it loads that the root layout's node does not are the wallet flow.
	const nodeIds = /node_ids: \[([\d, ]+)\]/
		.exec(served.get('/setup') ?? '')?.[1]
		?.split(',')
		.map((n) => n.trim());
	const nodeFile = (/** @type {string | undefined} */ id) =>
		id === undefined
			? undefined
			: [...setup].find((f) => path.basename(f).startsWith(`${id}.`) && /nodes[/\\]/.test(f));
	const setupNode = nodeFile(nodeIds?.at(-1));
	const layoutNode = nodeFile(nodeIds?.[0]);
	const layoutFiles = layoutNode ? closure([layoutNode], false) : new Set();
	const lazy = setupNode
		? [...closure([setupNode], false)]
				.filter((f) => !layoutFiles.has(f))
				.flatMap((f) =>
					[...readFileSync(f, 'utf8').matchAll(DYNAMIC_IMPORT)].map((m) => path.resolve(path.dirname(f), m[1] ?? ''))
				)
		: [];
	const isWalletConnect = (/** @type {string} */ code) => code.includes(WALLETCONNECT_ENTRY);
	const isSafeApp = (/** @type {string} */ code) => SAFE_MARKERS.some((m) => code.includes(m));
	const isNoWallet = (/** @type {string} */ code) =>
		code.includes(NO_WALLET_ENTRY) || code.includes(NO_WALLET_PHONE_ENTRY);
	// The injected flow: what /setup loads for a member whose browser has a wallet.
	const setupAll = setupNode
		? closure(lazy, true, new Set(setup), (code) => isWalletConnect(code) || isSafeApp(code) || isNoWallet(code))
		: null;
	const clientJs = allClientJs(path.join(root, 'client'));
	const walletConnectEntry = clientJs.filter((f) => isWalletConnect(readFileSync(f, 'utf8')));
	// What picking WalletConnect loads beyond the injected flow (its chunks and @walletconnect/*).
	const walletConnect = setupAll && walletConnectEntry.length > 0 ? onTop(walletConnectEntry, setupAll) : null;
	// What a page inside Safe{Wallet} loads on top (decision 0023): the chunks only the Safe App needs.
	const safeAppEntry = clientJs.filter((f) => isSafeApp(readFileSync(f, 'utf8')));
	const safeApp = setupAll && safeAppEntry.length > 0 ? onTop(safeAppEntry, setupAll) : null;
	// What a browser with no wallet loads on top (the phone deep links and the install hint).
	const noWalletEntry = clientJs.filter((f) => readFileSync(f, 'utf8').includes(NO_WALLET_ENTRY));
	const noWallet = setupAll && noWalletEntry.length > 0 ? onTop(noWalletEntry, setupAll) : null;
	// A browser with no wallet at all: /setup finds none without the wallet library and loads only the help.
	const setupNoWallet = noWalletEntry.length > 0 ? new Set([...setup, ...onTop(noWalletEntry, setup)]) : null;
	// The `siwe` parser must stay on the server. WalletConnect's own code (loaded on choice) carries viem's
	// verifySiweMessage action; the injected flow and the static pages must not carry any of it.
	const siwe = [...home, ...(setupAll ?? setup)].filter((f) =>
		SIWE_MARKERS.some((m) => readFileSync(f, 'utf8').includes(m))
	);
	/** @type {Omit<PageSize, 'ok'>[]} */
	const measured = [
		// Issue 15's limit for the home page (the 30 kB of the first benchmark issue predates the branding and guide).
		{ page: '/', ...measure(home), limit: 40_000, walletFree: true },
		{ page: '/setup', ...measure(setup), limit: 40_000, walletFree: true },
		// Issue 25: a wallet-less browser loads no wallet library.
		...(setupNoWallet
			? [{ page: '/setup, no wallet in the browser', ...measure(setupNoWallet), limit: 40_000, walletFree: true }]
			: []),
		...(setupAll ? [{ page: '/setup + wallet (onMount)', ...measure(setupAll), limit: 60_000 }] : []),
		// With no wallet in the browser, instead of choosing one: the total stays within the wallet flow's 60 kB.
		...(noWallet
			? [{ page: 'No wallet found (on top of the flow)', ...measure(noWallet), limit: Number.POSITIVE_INFINITY }]
			: []),
		// Loaded only when the member picks WalletConnect; no target beyond "not before the choice".
		...(walletConnect
			? [{ page: 'WalletConnect (on choice, on top)', ...measure(walletConnect), limit: Number.POSITIVE_INFINITY }]
			: []),
		// Loaded only inside a frame (Safe{Wallet}); no target of its own in the issue, 100 kB is this repo's ceiling.
		...(safeApp ? [{ page: 'Safe App (in a frame only, on top)', ...measure(safeApp), limit: 100_000 }] : [])
	];
	const pages = measured.map((p) => ({ ...p, ok: p.gzip <= p.limit && (!p.walletFree || p.markers.length === 0) }));
	return { pages, siwe: siwe.map((f) => path.relative(root, f)), locales: localeBundles(root, served, home, setup) };
}

/**
 * bench/run.js scenario: one row per page (sizes, not rates).
 * @type {import('../harness.js').Scenario}
 */
export default async function jsSize() {
	const { pages, siwe, locales } = await jsSizes();
	return [
		...pages.map((p) => ({
			name: `JS shipped for ${p.page}: ${(p.gzip / 1000).toFixed(1)} kB gzip in ${p.chunks} chunks (${(p.raw / 1000).toFixed(1)} kB raw), wallet code: ${p.markers.length ? p.markers.join(' ') : 'none'}${p.page === '/' ? `, siwe in any chunk: ${siwe.length ? 'YES' : 'no'}` : ''}`,
			target: Number.isFinite(p.limit)
				? `<= ${p.limit / 1000} kB${p.walletFree ? ', no wallet code' : ''}: ${p.ok ? 'met' : 'MISSED'}`
				: 'loaded only when chosen (no size target)'
		})),
		{ name: `JS shipped per locale: ${localeNote(locales)}` }
	];
}
