import { error, type Handle } from '@sveltejs/kit';
import { getRequestEvent } from '$app/server';
import { UNMATCHED_PATH } from '$lib/platform/hidden-sections';
import { localizedPath, splitLocalePath } from '$lib/i18n/locales';
import { routedPath } from './http';

/** The requests a load, an action or a guard answered as the unknown path (keyed by their `locals`, one per request). */
const answeredAsUnknown = new WeakSet<App.Locals>();

/**
 * What a page or action says when what it was asked for is not there, or not there for this caller (an unknown
 * programme, application or id): the unknown path's answer (docs/pages-and-forms.md "The 404 page"). A refusal
 * with words of its own (`fail(404, …)`, such as "This address is not on the team.") is not this.
 */
export function unknownPath(): never {
	try {
		answeredAsUnknown.add(getRequestEvent().locals);
	} catch {
		// Called outside a request (a unit test of a guard): the 404 alone.
	}
	error(404, 'Not Found');
}

/**
 * A request answered with `unknownPath()` gets exactly what the unknown path answers in the same locale, to the
 * same caller.
 *
 * The browser asks the server which route a link leads to (`router.resolution: 'server'`, svelte.config.js),
 * so a page SvelteKit renders for a matched route names that route in its hydration script (`server_route`),
 * even when its load refused: `/admin/form?program=nope` would then read as the admin's form, not as the
 * unknown path it is. Such an answer is replaced by the unknown path's own, rendered for this request
 * (its session, its locale), with the cookies this request set. Only HTML: data requests, form actions
 * answered in JSON and the API name no route.
 */
export const notFoundAsUnknownPath: Handle = async ({ event, resolve }) => {
	const response = await resolve(event);
	if (response.status !== 404 || !answeredAsUnknown.has(event.locals) || event.isDataRequest) return response;
	if (!response.headers.get('content-type')?.startsWith('text/html')) return response;
	await response.body?.cancel();
	const { locale } = splitLocalePath(routedPath(event.url.pathname));
	const unknown = await event.fetch(localizedPath(UNMATCHED_PATH, locale), {
		method: event.request.method === 'HEAD' ? 'HEAD' : 'GET',
		headers: { accept: event.request.headers.get('accept') ?? '*/*' }
	});
	const answer = new Response(unknown.body, { status: unknown.status, headers: unknown.headers });
	for (const cookie of response.headers.getSetCookie()) answer.headers.append('set-cookie', cookie);
	return answer;
};
