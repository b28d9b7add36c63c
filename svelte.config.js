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
				/** @type {string[]} */ (include).push(
					'../*.js',
					'../*.ts',
					'../scripts/**/*.js',
					'../bench/**/*.js',
					'../bench/**/*.cjs',
					'../bench/**/*.mjs',
					'../bench/**/*.ts',
					'../deploy/**/*.js'
				);
			}
		}
	}
};

export default config;
