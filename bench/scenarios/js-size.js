// @ts-check
// JavaScript shipped per page (gzip level 9, file by file as the server sends them) after the build:
// every chunk the prerendered HTML preloads or imports plus their static imports; `/setup + wallet`
// adds what /setup loads in onMount (followed through dynamic imports). Also checks that `/` holds
// no wallet code and that no client chunk carries the `siwe` parser.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

// Strings only wallet code carries (wagmi's and viem's error texts) and the `siwe` parser's names.
const WALLET_MARKERS = ['wagmi.sh', '@wagmi/core@', 'viem@', 'eip6963:'];
const SIWE_MARKERS = ['SiweMessage', 'apg-js', 'SiweError'];
const STATIC_IMPORT = /(?:^|[;\s}])(?:import|export)\s*(?:[\w${},*\s]+from\s*)?["']([^"']+\.js)["']/g;
const DYNAMIC_IMPORT = /import\(["'`]([^"'`]+\.js)["'`]\)/g;

// The Safe App's code (the Safe Apps SDK's method names): loaded only inside a frame, measured on its own.
const SAFE_MARKERS = ['getSafeInfo'];

/**
 * Every module reachable from `start` through static imports (and dynamic ones when `dynamic`). A
 * dynamic import of a module carrying the Safe App's code is not followed but put in `deferred`.
 * @param {string[]} start
 * @param {boolean} dynamic
 * @param {Set<string>} [seen]
 * @param {Set<string>} [deferred]
 */
function closure(start, dynamic, seen = new Set(), deferred) {
	const queue = [...start];
	for (let file; (file = queue.pop()) !== undefined;) {
		if (seen.has(file) || !existsSync(file)) continue;
		seen.add(file);
		const code = readFileSync(file, 'utf8');
		for (const m of code.matchAll(STATIC_IMPORT)) queue.push(path.resolve(path.dirname(file), m[1] ?? ''));
		if (dynamic)
			for (const m of code.matchAll(DYNAMIC_IMPORT)) {
				const target = path.resolve(path.dirname(file), m[1] ?? '');
				const safeApp =
					deferred && existsSync(target) && SAFE_MARKERS.some((k) => readFileSync(target, 'utf8').includes(k));
				if (safeApp) deferred.add(target);
				else queue.push(target);
			}
	}
	return seen;
}

/**
 * What the prerendered page's HTML loads before it runs: modulepreload links and inline import()s.
 * @param {string} root
 * @param {string} html
 */
function pageModules(root, html) {
	const text = readFileSync(path.join(root, html), 'utf8');
	const entries = [
		...text.matchAll(/<link href="([^"]+\.js)" rel="modulepreload"/g),
		...text.matchAll(/import\("([^"]+\.js)"\)/g)
	].map((m) => path.join(root, 'client', path.posix.normalize(m[1] ?? '')));
	return closure(entries, false);
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
 * Figures per page; `ok` says whether the issue's targets hold.
 * @returns {{ pages: PageSize[], siwe: string[] }}
 */
export function jsSizes(root = path.resolve('build')) {
	const home = pageModules(root, 'prerendered/index.html');
	const setup = pageModules(root, 'prerendered/setup.html');
	// The /setup page node is the chunk /setup loads that / does not; its dynamic imports are the wallet flow.
	const setupNode = [...setup].find((f) => /nodes[/\\]\d+\./.test(f) && !home.has(f));
	const lazy = setupNode
		? [...readFileSync(setupNode, 'utf8').matchAll(DYNAMIC_IMPORT)].map((m) =>
				path.resolve(path.dirname(setupNode), m[1] ?? '')
			)
		: [];
	/** @type {Set<string>} */
	const safeEntries = new Set();
	const setupAll = setupNode ? closure(lazy, true, new Set(setup), safeEntries) : null;
	// What a page inside Safe{Wallet} loads on top (decision 0022): the chunks only the Safe App needs.
	/** @type {Set<string>} */
	const safeApp = new Set(
		setupAll ? [...closure([...safeEntries], true, new Set())].filter((f) => !setupAll.has(f)) : []
	);
	const siwe = allClientJs(path.join(root, 'client')).filter((f) =>
		SIWE_MARKERS.some((m) => readFileSync(f, 'utf8').includes(m))
	);
	/** @type {Omit<PageSize, 'ok'>[]} */
	const measured = [
		{ page: '/', ...measure(home), limit: 30_000, walletFree: true },
		{ page: '/setup', ...measure(setup), limit: 60_000 },
		...(setupAll ? [{ page: '/setup + wallet (onMount)', ...measure(setupAll), limit: 60_000 }] : []),
		// No target of its own in the issue: only Safe{Wallet}'s frame loads it. 100 kB is this repo's ceiling.
		...(safeApp.size > 0 ? [{ page: '/setup + Safe App (in a frame only)', ...measure(safeApp), limit: 100_000 }] : [])
	];
	const pages = measured.map((p) => ({ ...p, ok: p.gzip <= p.limit && (!p.walletFree || p.markers.length === 0) }));
	return { pages, siwe: siwe.map((f) => path.relative(root, f)) };
}

/**
 * bench/run.js scenario: one row per page (sizes, not rates).
 * @type {import('../harness.js').Scenario}
 */
export default function jsSize() {
	const { pages, siwe } = jsSizes();
	return Promise.resolve(
		pages.map((p) => ({
			name: `JS shipped for ${p.page}: ${(p.gzip / 1000).toFixed(1)} kB gzip in ${p.chunks} chunks (${(p.raw / 1000).toFixed(1)} kB raw), wallet code: ${p.markers.length ? p.markers.join(' ') : 'none'}${p.page === '/' ? `, siwe in any chunk: ${siwe.length ? 'YES' : 'no'}` : ''}`,
			target: `<= ${p.limit / 1000} kB${p.walletFree ? ', no wallet code' : ''}: ${p.ok ? 'met' : 'MISSED'}`
		}))
	);
}
