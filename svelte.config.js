import adapterNode from '@sveltejs/adapter-node';
import adapterVercel from '@sveltejs/adapter-vercel';

// adapter-node by default; adapter-vercel on Vercel's build machines or with ADAPTER=vercel.
const useVercel = process.env.ADAPTER === 'vercel' || (process.env.VERCEL && process.env.ADAPTER !== 'node');

/** @type {import('@sveltejs/kit').Config} */
const config = {
	kit: {
		adapter: useVercel ? adapterVercel({ runtime: 'nodejs20.x' }) : adapterNode({ out: 'build' }),
		csrf: { trustedOrigins: [] },
		// Only / and /setup are static; the other pages read the session on the server.
		prerender: { crawl: false, entries: ['/', '/setup'], handleHttpError: 'fail' },
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
