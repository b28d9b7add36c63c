import type { Reroute } from '@sveltejs/kit';
import { browser, building } from '$app/environment';
import { CALLER_ROLES_HEADER, UNMATCHED_PATH, callerRolesProbe, hiddenSection } from '$lib/platform/hidden-sections';
import { splitLocalePath } from '$lib/i18n/locales';

/**
 * A page under a locale prefix (`/es/apply`) is the route of its path without it (src/lib/i18n/locales.ts);
 * a prefix before what is not a page (`/es/api/...`) is no route.
 *
 * A hidden section (src/lib/platform/hidden-sections.ts), with or without a prefix, resolves to no route for
 * anyone without its role, so SvelteKit answers it as the unknown path it is to them. With a trailing slash it
 * resolves to no route for everyone: SvelteKit would otherwise redirect it (308) and so reveal it
 * (docs/pages-and-forms.md).
 */
export const reroute: Reroute = async ({ url, fetch }) => {
	// On the server every request asks who is calling, whatever its path: a hidden section then takes
	// the time an unknown path takes (issue 54). The session it reads is read once per request
	// (src/hooks.server.ts sessionOf), so the handles that follow do not read it again.
	const roles = browser || building ? [] : await callerRoles(fetch);
	let decoded: string;
	try {
		decoded = decodeURI(url.pathname);
	} catch {
		return;
	}
	const { path, page } = splitLocalePath(decoded);
	if (!page) return UNMATCHED_PATH;
	const section = hiddenSection(path);
	// Without its prefix, as sent (SvelteKit decodes what reroute returns): the prefix is one segment.
	const second = url.pathname.indexOf('/', 1);
	const routed = path === decoded ? undefined : second === -1 ? '/' : url.pathname.slice(second);
	if (!section) return routed;
	if (decoded.endsWith('/')) return UNMATCHED_PATH;
	// In the browser the server decides, on the __data.json request that navigation makes.
	if (browser) return routed;
	if (!section.roles.some((role) => roles.includes(role))) return UNMATCHED_PATH;
	return routed;
};

/** The caller's roles, as handleFetch reads them from the session; none when anything goes wrong. */
async function callerRoles(fetch: typeof globalThis.fetch): Promise<string[]> {
	try {
		const roles = (await fetch(callerRolesProbe())).headers.get(CALLER_ROLES_HEADER);
		return roles ? roles.split(' ') : [];
	} catch {
		return [];
	}
}
