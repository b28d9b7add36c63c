import type { Handle, RequestEvent, ResolveOptions } from '@sveltejs/kit';

type Answer = Response | Promise<Response>;

/**
 * Runs `handles` in order, as SvelteKit's `sequence()` does, without the tracing span and request-store
 * scope that `sequence()` opens around each one: with the eight handles of src/hooks.server.ts those
 * cost the session check about a tenth of its rate (bench/history/2026-11-25-issue-34-hot-path.md, "The session check"). Resolve
 * options are passed on unmerged: the innermost handle that gives any decides them (none of the
 * portal's handles gives any; use `sequence()` for handles that transform page chunks).
 */
export function chain(...handles: Handle[]): Handle {
	return ({ event, resolve }) => {
		const step = (i: number, current: RequestEvent, options?: ResolveOptions): Answer => {
			const handle = handles[i];
			if (!handle) return resolve(current, options);
			return handle({ event: current, resolve: (next, given) => step(i + 1, next, given ?? options) });
		};
		return step(0, event);
	};
}
