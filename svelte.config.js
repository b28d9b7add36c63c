import adapterNode from '@sveltejs/adapter-node';
import adapterVercel from '@sveltejs/adapter-vercel';

// adapter-node by default; adapter-vercel on Vercel's build machines or with ADAPTER=vercel.
const useVercel = process.env.ADAPTER === 'vercel' || (process.env.VERCEL && process.env.ADAPTER !== 'node');

/** @type {import('@sveltejs/kit').Config} */
const config = {
	kit: {
		adapter: useVercel ? adapterVercel({ runtime: 'nodejs20.x' }) : adapterNode({ out: 'build' }),
		csrf: { trustedOrigins: [] },
		// Only / and /setup (and the generated /favicon.svg) are static; the other pages read the session on the server.
		prerender: { crawl: false, entries: ['/', '/setup', '/favicon.svg'], handleHttpError: 'fail' }
	}
};

export default config;
