import type { Handle, RequestEvent, ResolveOptions } from '@sveltejs/kit';

type Answer = Response | Promise<Response>;

/**
 * Runs `handles` in order, as SvelteKit's `sequence()` does, without the tracing span and request-store
 * scope that `sequence()` opens around each one: with the eight handles of src/hooks.server.ts those
 * cost the session check about a tenth of its rate (bench/history/2026-11-25-issue-34-hot-path.md, "The session check"). Resolve
 * options: each handle's `transformPageChunk` runs on the page, the innermost first (as `sequence()` does);
 * of the other options the innermost handle that gives one decides it.
 */
export function chain(...handles: Handle[]): Handle {
	return ({ event, resolve }) => {
		const step = (i: number, current: RequestEvent, options?: ResolveOptions): Answer => {
			const handle = handles[i];
			if (!handle) return resolve(current, options);
			return handle({ event: current, resolve: (next, given) => step(i + 1, next, merged(options, given)) });
		};
		return step(0, event);
	};
}

/** The options of an outer handle and of an inner one: both page-chunk transforms, the inner one's first. */
function merged(outer?: ResolveOptions, inner?: ResolveOptions): ResolveOptions | undefined {
	if (!outer || !inner) return inner ?? outer;
	const [first, then] = [inner.transformPageChunk, outer.transformPageChunk];
	if (!first || !then) return { ...outer, ...inner, transformPageChunk: first ?? then };
	return {
		...outer,
		...inner,
		transformPageChunk: async (input) => {
			const html = await first(input);
			return html === undefined ? undefined : then({ ...input, html });
		}
	};
}
