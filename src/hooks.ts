import type { Reroute } from '@sveltejs/kit';
import { browser } from '$app/environment';
import { CALLER_ROLES_PROBE, UNMATCHED_PATH, hiddenSection } from '$lib/platform/hidden-sections';

/**
 * A hidden section (src/lib/platform/hidden-sections.ts) resolves to no route for anyone without its role, so
 * SvelteKit answers it as the unknown path it is to them. With a trailing slash it resolves to no route
 * for everyone: SvelteKit would otherwise redirect it (308) and so reveal it (docs/pages-and-forms.md).
 */
export const reroute: Reroute = async ({ url, fetch }) => {
	let path: string;
	try {
		path = decodeURI(url.pathname);
	} catch {
		return;
	}
	const section = hiddenSection(path);
	if (!section) return;
	if (path.endsWith('/')) return UNMATCHED_PATH;
	// In the browser the server decides, on the __data.json request that navigation makes.
	if (browser) return;
	const roles = await callerRoles(fetch);
	if (!section.roles.some((role) => roles.includes(role))) return UNMATCHED_PATH;
};

/** The caller's roles, as handleFetch reads them from the session; none when anything goes wrong. */
async function callerRoles(fetch: typeof globalThis.fetch): Promise<string[]> {
	try {
		const body: unknown = await (await fetch(CALLER_ROLES_PROBE)).json();
		const roles = (body as { roles?: unknown } | null)?.roles;
		return Array.isArray(roles) ? roles.filter((r): r is string => typeof r === 'string') : [];
	} catch {
		return [];
	}
}
