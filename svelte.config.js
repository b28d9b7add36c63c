import adapterNode from '@sveltejs/adapter-node';
import adapterVercel from '@sveltejs/adapter-vercel';
import { withSecurityHeaders } from './deploy/adapter.js';
import { buildDirectives } from './deploy/security-headers.js';

// adapter-node by default; adapter-vercel on Vercel's build machines or with ADAPTER=vercel.
const useVercel = process.env.ADAPTER === 'vercel' || (process.env.VERCEL && process.env.ADAPTER !== 'node');

/** @type {import('@sveltejs/kit').Config} */
const config = {
	kit: {
		// The adapter, wrapped so that prerendered pages get the security headers too (docs/security.md).
		adapter: withSecurityHeaders(useVercel ? adapterVercel({ runtime: 'nodejs20.x' }) : adapterNode({ out: 'build' }), {
			target: useVercel ? 'vercel' : 'node'
		}),
		// Hashes for the prerendered pages' inline scripts, a nonce per dynamically rendered page.
		csp: { mode: 'auto', directives: buildDirectives() },
		csrf: { trustedOrigins: [] },
		// Absolute asset paths: a page (the 404 too) reads the same at every depth of path (docs/pages-and-forms.md).
		paths: { relative: false },
		// Only / and /setup (and the generated /favicon.svg and Safe App /manifest.json) are static; the other
		// pages read the session on the server.
		prerender: { crawl: false, entries: ['/', '/setup', '/favicon.svg', '/manifest.json'], handleHttpError: 'fail' },
		typescript: {
			// `npm run check` also type-checks the scripts, benchmarks, deploy tools and root configs run by plain node.
			config(tsconfig) {
				/** @type {unknown} */
				const include = tsconfig.include;
				const roots = ['*.js', '*.ts', 'scripts/**/*.js', 'deploy/**/*.js'];
				const bench = ['js', 'cjs', 'mjs', 'ts'].map((ext) => `bench/**/*.${ext}`);
				// Relative to .svelte-kit/, where the generated tsconfig lives.
				/** @type {string[]} */ (include).push(...[...roots, ...bench].map((glob) => `../${glob}`));
			}
		}
	}
};

export default config;
