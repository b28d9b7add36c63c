// @ts-check
// Wraps the deployment adapter so every deployment sends the security headers (docs/security.md).
// adapter-node: build/index.js becomes the portal's own server (deploy/server.js) around adapter-node's
// handler. adapter-vercel: the build's routes get the headers for the prerendered pages, which
// Vercel's CDN serves without running `handle`.
import { copyFileSync, existsSync, lstatSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import {
	HSTS,
	SAFE_APP_MANIFEST_HEADERS,
	SAFE_APP_MANIFEST_PATH,
	STATIC_HEADERS,
	headerOnlyDirectives,
	parseSafeAppOrigins,
	servedPolicy,
	walletConnectEnabled
} from './security-headers.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const POLICIES_FILE = 'prerendered-csp.json';

/** @param {string} file @returns {unknown} */
const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

const NODE_ENTRY = `// Written by deploy/adapter.js: adapter-node's handler behind the portal's server (deploy/server.js).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { serverSettingsProblems, listenForNodeAnswers, raiseBodyLimitForUploads, startPortalServer } from './server.js';
import { startFailed, surviveUnhandledRejections, unsetEmptyVariables } from './start-up.js';

// Before the app starts its background work: a failure there is logged, never the end of the server.
surviveUnhandledRejections();
// KEY= means unset, before adapter-node reads its own variables (BODY_SIZE_LIMIT, ORIGIN, ...).
unsetEmptyVariables();
const problems = serverSettingsProblems(process.env);
if (problems.length) startFailed(\`Invalid configuration: \${problems.join('; ')}\`);
// The apply form's files (25 MiB) past adapter-node; the app keeps BODY_SIZE_LIMIT for every other route.
raiseBodyLimitForUploads(process.env);
// The migrations this build was made with (scripts/build.js copies them beside it), whatever the working folder holds.
const migrations = path.join(import.meta.dirname, 'drizzle');
if (existsSync(migrations)) process.env.PORTAL_MIGRATIONS_FOLDER ??= migrations;
// Before the handler starts the app, which offers the answers the server may give itself (deploy/node-answers.js).
const answers = listenForNodeAnswers();
// A start that fails past the app's own checks still says why in one line, never a stack trace.
const { handler } = await import('./handler.js').catch((err) =>
	startFailed(\`Cannot start: \${err instanceof Error ? err.message.split('\\n')[0] : String(err)}\`)
);
export const server = startPortalServer(handler, { dir: import.meta.dirname, answers });
`;

/**
 * The header policy of each prerendered page: the one SvelteKit wrote into its <meta> (with the
 * hashes of its inline scripts) plus the directives a <meta> cannot carry.
 * @param {Map<string, { file: string }>} pages builder.prerendered.pages
 * @param {string} dir where the prerendered files are
 * @param {readonly string[]} [safeAppOrigins] the frames allowed (SAFE_APP_ORIGINS); none: 'none'
 * @returns {Record<string, string>}
 */
export function prerenderedPolicies(pages, dir, safeAppOrigins = /** @type {string[]} */ ([])) {
	/** @type {Record<string, string>} */
	const policies = {};
	for (const [pathname, { file }] of pages) {
		const html = readFileSync(path.join(dir, file), 'utf8');
		const meta = /<meta http-equiv="content-security-policy" content="([^"]*)"/.exec(html)?.[1];
		if (!meta) throw new Error(`the prerendered page ${pathname} has no content-security-policy <meta>: set kit.csp`);
		const policy = meta.replaceAll('&quot;', '"').replaceAll('&amp;', '&');
		policies[pathname] = [policy, ...headerOnlyDirectives(safeAppOrigins)].join('; ');
	}
	return policies;
}

/**
 * Puts the headers first in a Vercel build's routes (Build Output API v3), for every path and, with
 * its policy, for each prerendered page.
 * @param {string} configPath .vercel/output/config.json
 * @param {Record<string, string>} policies
 */
export function addVercelHeaderRoutes(configPath, policies) {
	const config = /** @type {{ routes: object[] }} */ (readJson(configPath));
	const escape = (/** @type {string} */ s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
	config.routes.unshift(
		{ src: '/.*', headers: { ...STATIC_HEADERS, 'Strict-Transport-Security': HSTS }, continue: true },
		{ src: `^${escape(SAFE_APP_MANIFEST_PATH)}$`, headers: { ...SAFE_APP_MANIFEST_HEADERS }, continue: true },
		...Object.entries(policies).map(([pathname, policy]) => ({
			src: pathname === '/' ? '^/(?:index\\.html)?$' : `^${escape(pathname)}(?:/|\\.html)?$`,
			headers: { 'Content-Security-Policy': policy },
			continue: true
		}))
	);
	writeFileSync(configPath, JSON.stringify(config, null, '\t') + '\n');
}

/** Vercel Cron's calls (Build Output API `crons`): webhook deliveries every minute, no server needed. */
export const VERCEL_CRONS = [{ path: '/api/cron/webhooks', schedule: '* * * * *' }];

/**
 * Adds VERCEL_CRONS to a Vercel build's configuration.
 * @param {string} configPath .vercel/output/config.json
 */
export function addVercelCrons(configPath) {
	const config = /** @type {{ crons?: { path: string, schedule: string }[] }} */ (readJson(configPath));
	const others = (config.crons ?? []).filter((c) => !VERCEL_CRONS.some((ours) => ours.path === c.path));
	config.crons = [...others, ...VERCEL_CRONS];
	writeFileSync(configPath, JSON.stringify(config, null, '\t') + '\n');
}

/**
 * Files a package reads beside itself at run time that Vercel's file tracer (nft) cannot see: it
 * follows `new URL(literal, import.meta.url)` but not tiny-secp256k1's `new URL(name, import.meta.url)`
 * with a variable, so its WebAssembly would be missing and sign-in, where libsecp256k1's native addon
 * does not load either, would fall back to viem (docs/decisions/0035-signature-recovery-in-libsecp256k1.md,
 * 0056). Paths are relative to the package.
 */
export const UNTRACED_FILES = [{ name: 'tiny-secp256k1', entry: 'lib/index.js', files: ['lib/secp256k1.wasm'] }];

/**
 * Copies UNTRACED_FILES into every function of a Vercel build that carries the package without them.
 * @param {string} functionsDir .vercel/output/functions
 * @returns {string[]} the files copied
 */
export function addUntracedFiles(functionsDir) {
	const require = createRequire(import.meta.url);
	/** @type {string[]} */
	const functions = [];
	/** @param {string} dir */
	const walk = (dir) => {
		for (const entry of readdirSync(dir)) {
			const full = path.join(dir, entry);
			// A function that several routes share appears once as a folder and otherwise as links to it.
			if (!lstatSync(full).isDirectory()) continue;
			if (entry.endsWith('.func')) functions.push(full);
			else walk(full);
		}
	};
	// A build whose every route is prerendered has no functions folder (as the header tests' stand-in build).
	if (existsSync(functionsDir)) walk(functionsDir);
	/** @type {string[]} */
	const copied = [];
	for (const { name, entry, files } of UNTRACED_FILES) {
		// The package's own folder: its CommonJS entry is lib/cjs/index.cjs, two levels under it.
		const source = path.resolve(path.dirname(require.resolve(name)), '..', '..');
		if (!existsSync(path.join(source, entry))) throw new Error(`${name}: ${entry} not found under ${source}`);
		for (const fn of functions) {
			const target = path.join(fn, 'node_modules', name);
			if (!existsSync(path.join(target, entry))) continue;
			for (const file of files) {
				if (existsSync(path.join(target, file))) continue;
				copyFileSync(path.join(source, file), path.join(target, file));
				copied.push(path.join(target, file));
			}
		}
	}
	return copied;
}

/**
 * @param {import('@sveltejs/kit').Adapter} inner adapter-node or adapter-vercel
 * @param {{ target: 'node' | 'vercel', out?: string, vercelConfig?: string }} options out: adapter-node's folder
 * @returns {import('@sveltejs/kit').Adapter}
 */
export function withSecurityHeaders(inner, { target, out = 'build', vercelConfig = '.vercel/output/config.json' }) {
	return {
		...inner,
		async adapt(builder) {
			await inner.adapt(builder);
			const dir = path.join(builder.getBuildDirectory('output'), 'prerendered', 'pages');
			if (target === 'vercel') {
				// Vercel's CDN serves these headers as built: the build's environment decides on WalletConnect and
				// on SAFE_APP_ORIGINS (the functions read the latter again at run time; the Node server when it starts).
				const walletConnect = walletConnectEnabled(process.env);
				const safeAppOrigins = parseSafeAppOrigins(process.env.SAFE_APP_ORIGINS);
				const served = Object.fromEntries(
					Object.entries(prerenderedPolicies(builder.prerendered.pages, dir, safeAppOrigins)).map(([page, policy]) => [
						page,
						servedPolicy(policy, { walletConnect })
					])
				);
				addVercelHeaderRoutes(vercelConfig, served);
				addUntracedFiles(path.join(path.dirname(vercelConfig), 'functions'));
				return addVercelCrons(vercelConfig);
			}
			const policies = prerenderedPolicies(builder.prerendered.pages, dir);
			writeFileSync(path.join(out, POLICIES_FILE), JSON.stringify(policies, null, '\t') + '\n');
			for (const file of ['server.js', 'security-headers.js', 'node-answers.js', 'start-up.js'])
				copyFileSync(path.join(here, file), path.join(out, file));
			writeFileSync(path.join(out, 'index.js'), NODE_ENTRY);
			rmSync(path.join(out, 'index.js.map'), { force: true });
		}
	};
}
