import type { Reroute } from '@sveltejs/kit';

/**
 * A path under /admin (or /metrics) with a trailing slash resolves to no route, as an unknown path does: SvelteKit
 * would otherwise redirect it (308) before `handle` can hide /admin (docs/pages-and-forms.md).
 */
export const reroute: Reroute = ({ url }) => {
	let path: string;
	try {
		path = decodeURI(url.pathname);
	} catch {
		return;
	}
	// /metrics/ too: its redirect would show that the scrape endpoint exists.
	if (path.endsWith('/') && /^\/(admin(\/|$)|metrics\/)/.test(path)) return '/__no_such_route__/';
};
