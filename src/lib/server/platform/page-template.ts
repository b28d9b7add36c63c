import type { Handle, RequestEvent, ResolveOptions } from '@sveltejs/kit';

/** A placeholder of src/app.html and what it says on this page. */
export type Placeholder = readonly [mark: string, value: string];

/**
 * Fills src/app.html's own placeholders on every page, all together: each is the first of its kind in
 * the page, in the template's `<html>` and head, before any of the page's own text (src/hooks.server.ts
 * says which, and with what).
 *
 * Together rather than one replace each: a replace leaves the page a rope of three strings, which the
 * next placeholder's search copied whole into one string again, so three placeholders made three copies
 * of the page and SvelteKit's ETag a fourth; filled together, the page is copied once for the search and
 * once for the ETag (bench/README.md "Figures behind the code"). `options` are the page's other resolve
 * options (what its Link header names: `scriptsOnly`).
 */
export function pageTemplate(
	placeholders: (event: RequestEvent) => Promise<Placeholder[]>,
	options: Omit<ResolveOptions, 'transformPageChunk'> = {}
): Handle {
	return ({ event, resolve }) =>
		resolve(event, {
			...options,
			transformPageChunk: async ({ html }) => fillFirst(html, await placeholders(event))
		});
}

/**
 * What a page's `Link` header asks the browser to fetch early: its scripts, which the page names nowhere
 * else (SvelteKit's `modulepreload` strategy lists them only there), and not its stylesheets, which the
 * template's head links at the top of the same answer (SvelteKit's default preloads both). The header
 * was 42 entries and 3 kB on /apply, sent and read with every page (bench/README.md "Figures behind the
 * code").
 */
export const scriptsOnly: NonNullable<ResolveOptions['preload']> = ({ type }) => type === 'js';

/** `html` with the first of each mark that it holds replaced by its value (taken as it is: no `$` patterns). */
export function fillFirst(html: string, placeholders: readonly Placeholder[]): string {
	const found = placeholders
		.map(([mark, value]) => ({ at: html.indexOf(mark), mark, value }))
		.filter(({ at }) => at !== -1)
		.sort((a, b) => a.at - b.at);
	let filled = '';
	let from = 0;
	for (const { at, mark, value } of found) {
		if (at < from) continue; // overlapping the mark before it (`%lang%dir%`): that one was filled
		filled += html.slice(from, at) + value;
		from = at + mark.length;
	}
	return filled + html.slice(from);
}
