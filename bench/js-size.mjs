// JavaScript each prerendered page loads (gzip): the chunks its HTML preloads or imports, and their
// static imports. Run after `vite build`: `node bench/js-size.mjs` (exit 1 when a target is missed).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

const root = path.resolve(process.argv[2] ?? 'build');
const pages = [
	{ route: '/', html: 'prerendered/index.html', limit: 30_000, walletFree: true },
	{ route: '/setup', html: 'prerendered/setup.html', limit: 60_000, walletFree: false }
];
// Strings that only wallet code carries (wagmi's and viem's error texts) and the `siwe` parser's class name.
const WALLET_MARKERS = ['wagmi.sh', '@wagmi/core@', 'viem@', 'eip6963:'];
const SIWE_MARKERS = ['SiweMessage', 'apg-js', 'SiweError'];

function clientFile(url, from) {
	const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(from), url));
	return path.join(root, 'client', resolved);
}

/** Every module a page loads before it runs: HTML preloads and imports, then each chunk's static imports. */
function modulesOf(htmlFile) {
	const html = readFileSync(path.join(root, htmlFile), 'utf8');
	const queue = [];
	for (const m of html.matchAll(/<link href="([^"]+\.js)" rel="modulepreload"/g)) queue.push(clientFile(m[1], '/'));
	for (const m of html.matchAll(/import\("([^"]+\.js)"\)/g)) queue.push(clientFile(m[1], '/'));
	const seen = new Set();
	while (queue.length) {
		const file = queue.pop();
		if (seen.has(file) || !existsSync(file)) continue;
		seen.add(file);
		const code = readFileSync(file, 'utf8');
		// Static imports only (`import ... from "x"` and `import "x"`); dynamic import() loads later, on demand.
		for (const m of code.matchAll(/(?:^|[;\s}])(?:import|export)\s*(?:[\w${},*\s]+from\s*)?["']([^"']+\.js)["']/g)) {
			queue.push(path.resolve(path.dirname(file), m[1]));
		}
	}
	return [...seen];
}

function allClientJs(dir) {
	return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
		d.isDirectory() ? allClientJs(path.join(dir, d.name)) : d.name.endsWith('.js') ? [path.join(dir, d.name)] : []
	);
}

let failed = false;
const rows = [];
for (const page of pages) {
	const files = modulesOf(page.html);
	let raw = 0;
	let gzip = 0;
	const markers = new Set();
	for (const file of files) {
		const code = readFileSync(file);
		raw += code.length;
		gzip += gzipSync(code, { level: 9 }).length;
		for (const m of WALLET_MARKERS) if (code.includes(m)) markers.add(m);
	}
	const ok = gzip <= page.limit && (!page.walletFree || markers.size === 0);
	if (!ok) failed = true;
	rows.push({
		page: page.route,
		chunks: files.length,
		'raw kB': (raw / 1000).toFixed(1),
		'gzip kB': (gzip / 1000).toFixed(1),
		'target kB': page.limit / 1000,
		'wallet code': markers.size ? [...markers].join(' ') : 'none',
		ok
	});
}

// A page's wallet code arrives through dynamic import; measure /setup including what onMount loads.
const setupAll = new Set(modulesOf('prerendered/setup.html'));
const homeModules = new Set(modulesOf('prerendered/index.html'));
const setupNode = [...setupAll].find((f) => /nodes[/\\]\d+\./.test(f) && !homeModules.has(f));
if (setupNode) {
	const code = readFileSync(setupNode, 'utf8');
	const queue = [...code.matchAll(/import\(["'`]([^"'`]+\.js)["'`]\)/g)].map((m) => path.resolve(path.dirname(setupNode), m[1]));
	while (queue.length) {
		const file = queue.pop();
		if (setupAll.has(file) || !existsSync(file)) continue;
		setupAll.add(file);
		const c = readFileSync(file, 'utf8');
		for (const m of c.matchAll(/(?:^|[;\s}])(?:import|export)\s*(?:[\w${},*\s]+from\s*)?["']([^"']+\.js)["']/g)) queue.push(path.resolve(path.dirname(file), m[1]));
		for (const m of c.matchAll(/import\(["'`]([^"'`]+\.js)["'`]\)/g)) queue.push(path.resolve(path.dirname(file), m[1]));
	}
	let gzip = 0;
	let raw = 0;
	for (const file of setupAll) {
		const c = readFileSync(file);
		raw += c.length;
		gzip += gzipSync(c, { level: 9 }).length;
	}
	const ok = gzip <= 60_000;
	if (!ok) failed = true;
	rows.push({ page: '/setup + wallet', chunks: setupAll.size, 'raw kB': (raw / 1000).toFixed(1), 'gzip kB': (gzip / 1000).toFixed(1), 'target kB': 60, 'wallet code': 'loaded in onMount', ok });
} else {
	failed = true;
	console.error('could not find the /setup page node');
}

const siwe = allClientJs(path.join(root, 'client')).filter((f) => SIWE_MARKERS.some((m) => readFileSync(f, 'utf8').includes(m)));
if (siwe.length) {
	failed = true;
	console.error(`the siwe parser reached the browser: ${siwe.join(', ')}`);
}

console.table(rows);
console.log(`siwe in browser chunks: ${siwe.length ? 'YES' : 'no'}`);
process.exit(failed ? 1 : 0);
