import { availableParallelism } from 'node:os';
import path from 'node:path';
import { sveltekit } from '@sveltejs/kit/vite';
import { paraglideVitePlugin } from '@inlang/paraglide-js';
import { loadEnv, type Plugin } from 'vite';
import { defineConfig } from 'vitest/config';
import { accentCss } from './src/lib/branding/accent.ts';
import { parseBranding } from './src/lib/branding/branding.ts';
import { portalVersion } from './scripts/portal-version.js';

/**
 * The community's branding is fixed at build time (the prerendered pages carry it): validated here,
 * embedded as `__BRANDING__`, and its accent colours appended to src/app.css (docs/design-system.md).
 */
function branding(mode: string): Plugin {
	const env = loadEnv(mode, process.cwd(), ['PUBLIC_COMMUNITY_', 'PUBLIC_ACCENT_COLOR']);
	const value = parseBranding(env);
	return {
		name: 'community-branding',
		config: () => ({ define: { __BRANDING__: JSON.stringify(value) } }),
		transform(code, id) {
			if (id.replace(/\?.*$/, '').endsWith('/src/app.css')) return { code: code + accentCss(value.accent), map: null };
		}
	};
}

/**
 * @safe-global/safe-apps-provider (CommonJS, loaded only inside Safe{Wallet}) require()s the Safe Apps
 * SDK for one enum, TransactionStatus, which the SDK re-exports from its gateway package. A require() of
 * the SDK's ES module build would wrap it and the viem code it imports for CommonJS, and the bundler then
 * moves that code into the wallet chunk every /setup visit loads; its CommonJS build would bring all of
 * viem's. So the provider's require() gets the gateway package, where the enum is defined.
 */
function safeAppsProviderInterop(): Plugin {
	return {
		name: 'safe-apps-provider-interop',
		enforce: 'pre',
		resolveId(source, importer) {
			if (source !== '@safe-global/safe-apps-sdk' || !importer?.includes('/@safe-global/safe-apps-provider/'))
				return null;
			return this.resolve('@safe-global/safe-gateway-typescript-sdk', importer, { skipSelf: true });
		}
	};
}

/**
 * WalletConnect gets its own copy of the libraries it shares with the injected-wallet flow (viem, ox,
 * @wagmi/core...). Chunks follow static reachability: the injected flow reaches all of viem's actions
 * through @wagmi/core, so every viem module WalletConnect uses would land in a chunk the injected flow
 * loads (80 kB gzip more). Resolved from WalletConnect's side, these modules get a marked id, which
 * only the WalletConnect chunks reach (docs/decisions/0021-walletconnect-chunks.md).
 */
function isolateWalletConnect(): Plugin {
	const MARK = '?walletconnect';
	// @wagmi/connectors' Safe connector is not WalletConnect's: it shares the injected flow's copies.
	const OWN =
		/\/node_modules\/(?:@walletconnect|@reown|@wagmi\/connectors(?!\/dist\/esm\/safe\.js))\/|\/src\/lib\/wallet\/connectors\/walletconnect\.ts$/;
	const SHARED = /\/node_modules\/(?:viem|ox|abitype|@noble\/\w+|@scure\/\w+|@wagmi\/core)\//;
	return {
		name: 'isolate-walletconnect',
		apply: 'build',
		enforce: 'pre',
		applyToEnvironment: (environment) => environment.name === 'client',
		async resolveId(source, importer, options) {
			if (!importer || !(importer.endsWith(MARK) || OWN.test(importer))) return null;
			const resolved = await this.resolve(source, importer.replace(MARK, ''), { ...options, skipSelf: true });
			if (!resolved || resolved.external || !SHARED.test(resolved.id) || resolved.id.includes('?')) return resolved;
			return { ...resolved, id: resolved.id + MARK };
		}
	};
}

/**
 * Fewer, larger chunks where pages load them together anyway. The bundler's default gives each set of
 * importers its own chunk: a dozen files of a few hundred bytes on the home page and half a dozen in
 * the wallet flow, each compressed on its own. Two groups instead, each everything reachable through
 * static imports from its roots, found once the module graph is known:
 * - `shared`: SvelteKit's client entry and root component, Svelte's client runtime (the parts these use), the
 *   root layout and the root error page, which SvelteKit's client loads at every start (every page loads all of it);
 * - `svelte`: the other parts of Svelte's runtime, by the pages that use them (`entriesAware`);
 * - `setup`: what /setup's own page and the wallet flow both import (chain values, the public env),
 *   so that the page never pulls the wallet chunk in statically (a browser with no wallet skips it).
 * - `setup-page`: the rest of what /setup's page imports (the page, its preview tags, the wallet detection):
 *   one file instead of three for the wallet-less visit (issue 61's 40 kB, bench/README.md).
 * - `wallet`: the wallet module and the sign-in component (what /setup loads on mount), less what only
 *   the Safe App's connector reaches (through the libraries' index modules), which stays behind the
 *   Safe App's dynamic import. The sign-out triggers, which only the layout of a signed-in member
 *   loads, stay apart.
 * Each merged group compresses as one file: about 3 kB less gzip on `/` and on the wallet flow
 * (docs/design-system.md "Budget"). Modules only some pages use (`$app/forms`, the admin's
 * components) and WalletConnect's own copies stay in chunks of their own.
 */
function chunkGroups(): Plugin {
	const SHARED =
		/[\\/](?:src[\\/]routes[\\/]\+(?:layout|error)\.svelte|\.svelte-kit[\\/]generated[\\/]root\.(?:svelte|js)|@sveltejs[\\/]kit[\\/]src[\\/]runtime[\\/]client[\\/]entry\.js|svelte[\\/]src[\\/]index-client\.js)$|^\0vite\/preload-helper/;
	// Svelte's compiled components import its client runtime as one namespace (`import * as $`), a file of
	// re-exports only. Walked through, it brings every part of Svelte any page uses into what every page
	// loads; instead, the `shared` walk follows only the parts its own modules name (`$.each`, `$.bind_value`).
	const SVELTE = /[\\/]node_modules[\\/]svelte[\\/]src[\\/]/;
	const SVELTE_INTERNAL = /[\\/]svelte[\\/]src[\\/]internal[\\/]client[\\/]index\.js$/;
	const WALLET = /[\\/]src[\\/]lib[\\/](?:wallet[\\/]wallet\.svelte\.ts|components[\\/]sign-in[\\/]SignIn\.svelte)$/;
	// Paraglide's runtime, which every message imports (and no file the root layout loads): a chunk of its
	// own, not the wallet's, which would otherwise capture it with the sign-in's messages.
	const PARAGLIDE_RUNTIME = /[\\/]src[\\/]lib[\\/]paraglide[\\/]runtime\.js$/;
	const SAFE = /[\\/]src[\\/]lib[\\/]wallet[\\/]connectors[\\/]safe\.ts$/;
	// What /setup itself imports and the wallet flow imports too (chain values, the public env) goes in a
	// chunk of its own, not the wallet's: a browser with no wallet must not download the wallet library.
	const SETUP = /[\\/]src[\\/]routes[\\/]setup[\\/]\+page\.svelte$/;
	const shared = new Set<string>();
	const setup = new Set<string>();
	const wallet = new Set<string>();
	const safe = new Set<string>();
	return {
		name: 'chunk-groups',
		apply: 'build',
		applyToEnvironment: (environment) => environment.name === 'client',
		buildStart() {
			for (const set of [shared, setup, wallet, safe]) set.clear();
		},
		// Svelte's package declares no side effects, so the bundler keeps every part its runtime's barrel
		// re-exports wherever the barrel is imported. The barrel has no code of its own: said so (its code
		// unchanged), each page's chunks carry only the parts that page uses.
		transform(code, id) {
			if (SVELTE_INTERNAL.test(id)) return { code, map: null, moduleSideEffects: false };
		},
		buildEnd() {
			const ids = [...this.getModuleIds()];
			const known = new Set(ids);
			const runtime = ids.find((id) => SVELTE_INTERNAL.test(id));
			const walk = (roots: string[], into: Set<string>, except: Set<string>) => {
				const queue = [...roots];
				for (let id; (id = queue.pop()) !== undefined;) {
					// The runtime's barrel joins no group: each walk stops there (the parts come by name, below).
					if (into.has(id) || except.has(id) || id === runtime) continue;
					into.add(id);
					queue.push(...(this.getModuleInfo(id)?.importedIds ?? []));
				}
			};
			const rootsOf = (pattern: RegExp) => ids.filter((id) => pattern.test(id));
			walk(rootsOf(SHARED), shared, new Set());
			if (runtime) {
				// The runtime's parts by the names it exports them under; then the parts the shared modules name.
				const parts = new Map<string, string>();
				const reExports = /export\s*\{([^}]*)\}\s*from\s*['"]([^'"]+)['"]/g;
				for (const [, list = '', from = ''] of this.getModuleInfo(runtime)?.code?.matchAll(reExports) ?? []) {
					const file = path.resolve(path.dirname(runtime), from);
					for (const item of list.split(',')) {
						const name = item
							.trim()
							.split(/\s+as\s+/)
							.pop();
						if (name) parts.set(name, file);
					}
				}
				const named = new Set<string>();
				for (const id of shared)
					for (const [, name = ''] of this.getModuleInfo(id)?.code?.matchAll(/\$\.(\w+)/g) ?? []) {
						const file = parts.get(name);
						if (file && known.has(file)) named.add(file);
					}
				walk([...named], shared, new Set());
			}
			// The parts of Svelte no page every visitor sees uses stay in the bundler's own chunks, not the wallet's.
			const notShared = new Set([...shared, ...ids.filter((id) => SVELTE.test(id))]);
			walk(rootsOf(SAFE), safe, notShared);
			walk(rootsOf(SETUP), setup, notShared);
			walk(rootsOf(WALLET), wallet, notShared);
		},
		configEnvironment(name) {
			if (name !== 'client') return;
			const groups = [
				{ name: 'shared', test: (id: string) => shared.has(id) },
				{ name: 'paraglide', test: (id: string) => PARAGLIDE_RUNTIME.test(id) },
				// The parts of Svelte the chunk every page loads does not hold ({#each}'s list reconciler among them),
				// by the pages that use them, before the wallet group, which would otherwise capture those its own
				// components use as their dependencies (rolldown's default), and every page with a list would load it.
				{ name: 'svelte', test: (id: string) => SVELTE.test(id) && !shared.has(id), entriesAware: true },
				// Before the wallet group, which would otherwise capture them with its dependencies.
				{ name: 'setup', test: (id: string) => wallet.has(id) && setup.has(id) },
				// Apart from the `setup` group: the error pages of /apply, /checkin and /inbox reach the wallet chunk,
				// and with it the `setup` chunk, and would then load /setup's page too (1.4 kB, bench/README.md).
				{ name: 'setup-page', test: (id: string) => setup.has(id) && !wallet.has(id) },
				{ name: 'wallet', test: (id: string) => wallet.has(id) && !safe.has(id) && !setup.has(id) }
			];
			return { build: { rolldownOptions: { output: { codeSplitting: { groups } } } } };
		}
	};
}

/** Unit files that replace a module or a global for their own tests (kept isolated: the unit project's note). */
const UNIT_MOCKS = [
	'src/lib/server/auth/bearer.test.ts',
	'src/lib/wallet/connectors/walletconnect.test.ts',
	'src/lib/wallet/connectors/walletconnect-restore.test.ts'
];

export default defineConfig(({ command, mode }) => ({
	// The built server carries viem (with its ox, abitype, @noble and @scure) and drizzle-orm bundled, only what
	// it uses of them: imported from node_modules at start, viem's index alone is about 1,100 modules, and a
	// server start spent 2.5 s of CPU, 1.6 s bundled (bench/README.md, CI time). Only in the build: vitest
	// and `vite dev` would otherwise transform every one of those modules themselves.
	ssr: command === 'build' ? { noExternal: ['viem', 'ox', /^@noble\//, /^@scure\//, 'abitype', 'drizzle-orm'] } : {},
	// The version a backup's header names (src/lib/server/db/dump.js): package.json's and the git commit built.
	define: { __PORTAL_VERSION__: JSON.stringify(portalVersion()) },
	build: {
		// A page's code loaded on navigation brings its stylesheets with it, and its scripts through their own
		// imports: the list of every page's script files is not shipped to every visitor (2 kB gzip of the code
		// every page loads, bench/README.md "Per-locale JavaScript").
		modulePreload: { resolveDependencies: (_file, deps) => deps.filter((dep) => dep.endsWith('.css')) }
	},
	plugins: [
		branding(mode),
		safeAppsProviderInterop(),
		isolateWalletConnect(),
		chunkGroups(),
		// messages/<locale>.json compiled to src/lib/paraglide (one module per message, tree-shaken); the
		// locale comes from the URL only (src/lib/i18n/locales.ts, DECISIONS "Every applicant in their language").
		paraglideVitePlugin({
			project: './project.inlang',
			outdir: './src/lib/paraglide',
			strategy: ['url', 'baseLocale'],
			// One module per message in every mode (the plugin's default outside production is one per locale):
			// the browser's code imports each message from its own module (docs/translations.md).
			outputStructure: 'message-modules',
			emitGitIgnore: false,
			emitPrettierIgnore: false
		}),
		sveltekit()
	],
	test: {
		environment: 'node',
		testTimeout: 30_000,
		hookTimeout: 60_000,
		pool: 'forks',
		// Most files wait on a server, a socket or a database more than they compute: vitest's default (one
		// fewer than the cores) ran one file at a time on two cores (16–18 minutes in CI, 8 with two), and with a
		// file per core the CPU was still idle 20–50 % of the vitest phase (vmstat in CI, 2026-12-05): one more.
		maxWorkers: availableParallelism() + 1,
		// Every test file starts without the process-wide values an earlier one set (src/lib/platform/singleton.ts).
		setupFiles: ['tests/helpers/fresh-process.ts'],
		// A test that asserts nothing cannot fail.
		expect: { requireAssertions: true },
		projects: [
			// Pure functions, next to the module they test (and tests/unit/ for the test fixtures' own checks):
			// no database, no server, no network. The files of a worker share its modules (`isolate: false`):
			// importing them again for each file was most of the project's time (bench/README.md, CI time).
			{
				extends: true,
				test: {
					name: 'unit',
					isolate: false,
					include: ['src/**/*.test.ts', 'tests/unit/**/*.test.ts'],
					exclude: UNIT_MOCKS
				}
			},
			// The unit files that replace a module (`vi.mock`) or a global (`vi.stubGlobal`): each in a module
			// graph of its own, so that no other file sees the stand-in.
			{
				extends: true,
				test: {
					name: 'unit-mocks',
					include: UNIT_MOCKS,
					// Processed by vite, so that a test can stand in for WalletConnect's provider (connectors/walletconnect.test.ts).
					server: { deps: { inline: ['@wagmi/connectors'] } }
				}
			},
			// In-process against a real database (PGlite; the Postgres server too with TEST_DATABASE_URL).
			{
				extends: true,
				test: {
					name: 'integration',
					// Shared modules per worker, as the unit project; each file opens its own database, and the
					// setup file forgets the process-wide values an earlier file set.
					isolate: false,
					include: ['tests/integration/**/*.test.ts'],
					// The migrated templates each test database copies, made once (tests/helpers/test-templates.ts).
					globalSetup: ['tests/helpers/test-templates.ts']
				}
			},
			// The built server (build/index.js) over real HTTP: refuses to start on a missing or stale build.
			{
				extends: true,
				test: {
					name: 'http',
					// Each file in a fresh process (the default): its cost is the servers it starts, not its imports
					// (bench/README.md, CI time), and a server or handle a file leaves goes with its process.
					include: ['tests/http/**/*.test.ts'],
					// One engine per file (the Postgres server when TEST_DATABASE_URL is set); TEST_ENGINES=all runs
					// both (tests/helpers/db.ts, docs/decisions/0048-http-tests-on-one-engine.md).
					env: { TEST_ENGINES_DEFAULT: 'one' },
					globalSetup: [
						'tests/helpers/require-current-build.ts',
						'tests/helpers/test-templates.ts',
						'tests/helpers/server-template.ts'
					]
				}
			}
		]
	}
}));
