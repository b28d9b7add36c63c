import adapterNode from '@sveltejs/adapter-node';
import adapterVercel from '@sveltejs/adapter-vercel';
import { loadEnv } from 'vite';
import { withSecurityHeaders } from './deploy/adapter.js';
import { buildDirectives, logoOrigin } from './deploy/security-headers.js';

// adapter-node by default; adapter-vercel on Vercel's build machines or with ADAPTER=vercel.
const useVercel = process.env.ADAPTER === 'vercel' || (process.env.VERCEL && process.env.ADAPTER !== 'node');

// Where adapter-node writes the server (build/); PORTAL_BUILD_OUT and PORTAL_KIT_OUT make a second build
// beside the usual one without touching it (scripts/build.js's new folder, tests/helpers/vercel-build.ts).
const out = process.env.PORTAL_BUILD_OUT ?? 'build';

/** @type {import('@sveltejs/kit').Config} */
const config = {
	// Runes everywhere in this app (Svelte 5): a component without a rune would otherwise compile in
	// legacy mode, which pulls the legacy flag and code paths into every page's JavaScript.
	// Libraries' components keep their own mode.
	// No `window.__svelte.v` registration in every page's JavaScript (the running Svelte version, for tools
	// that look for it): issue 61's budget (bench/README.md).
	compilerOptions: { discloseVersion: false },
	vitePlugin: {
		dynamicCompileOptions: ({ filename }) => (/[\\/]node_modules[\\/]/.test(filename) ? undefined : { runes: true })
	},
	kit: {
		// The adapter, wrapped so that prerendered pages get the security headers too (docs/security.md).
		adapter: withSecurityHeaders(useVercel ? adapterVercel({ runtime: 'nodejs20.x' }) : adapterNode({ out }), {
			target: useVercel ? 'vercel' : 'node',
			out
		}),
		// Hashes for the prerendered pages' inline scripts, a nonce per dynamically rendered page.
		// An https community logo of another site may load (img-src); read as vite.config.ts reads the branding.
		csp: {
			mode: 'auto',
			directives: buildDirectives({ logoOrigin: logoOrigin(loadEnv('production', process.cwd(), 'PUBLIC_COMMUNITY_')) })
		},
		outDir: process.env.PORTAL_KIT_OUT ?? '.svelte-kit',
		// src/service-worker.ts only shows push notifications: /inbox registers it when a member turns push on,
		// so no other page (the prerendered /setup above all) carries a registration script.
		serviceWorker: { register: false },
		// SvelteKit's CSRF check is off: refuseCrossSiteForms (src/lib/server/platform/request-guards.ts) makes the
		// same check in `handle`, so that under /api its 403 carries the contract's error body.
		csrf: { trustedOrigins: ['*'] },
		// Absolute asset paths: a page (the 404 too) reads the same at every depth of path (docs/pages-and-forms.md).
		paths: { relative: false },
		// The browser asks the server which route a link leads to, so the route table is not in the JavaScript
		// every page loads (issue 61: about 2.3 kB gzip of /setup, bench/README.md "JavaScript shipped"); a client-side
		// navigation to a page not seen yet costs a request. A hidden section resolves to no route for anyone without
		// its role (src/hooks.ts reroute runs for the route endpoint too), and a page's own 404 is replaced by the
		// unknown path's (src/lib/server/platform/not-found.ts), which would otherwise name its route (`server_route`).
		// On Vercel it stays in the browser: adapter-vercel answers route resolution from an edge function of its
		// own, which cannot run the portal's hooks (reroute asks who is calling; Node's crypto and streams).
		router: { resolution: useVercel ? 'client' : 'server' },
		// Nothing is prerendered: every page shows the community's look as /admin/settings saved it (issue 59),
		// read per request (src/routes/+layout.server.ts).
		prerender: { crawl: false, entries: [], handleHttpError: 'fail' },
		typescript: {
			// `npm run check` also type-checks the scripts, benchmarks, deploy tools and root configs run by plain node.
			config(tsconfig) {
				/** @type {unknown} */
				const include = tsconfig.include;
				const roots = ['*.js', '*.ts', 'scripts/**/*.js', 'deploy/**/*.js'];
				const bench = ['js', 'cjs', 'mjs', 'ts'].map((ext) => `bench/**/*.${ext}`);
				// Relative to .svelte-kit/, where the generated tsconfig lives.
				/** @type {string[]} */ (include).push(...[...roots, ...bench].map((glob) => `../${glob}`));
				// bench/peers and bench/lighthouse are other projects (their own package.json and node_modules): not checked here.
				/** @type {unknown} */
				const exclude = tsconfig.exclude;
				/** @type {string[]} */ (exclude).push(
					...['bench/peers/**', 'bench/lighthouse/**'].map((glob) => `../${glob}`)
				);
			}
		}
	}
};

export default config;
