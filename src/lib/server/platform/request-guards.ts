import { json, text, type Handle } from '@sveltejs/kit';
import { ownEntry } from '$lib/platform/own-entry';
import { splitLocalePath } from '$lib/i18n/locales';
import { isApiPath, jsonError, routedPath } from './http';
import { unknownPath } from './not-found';

// Content types a browser form can send across origins (SvelteKit's own list, kit/src/utils/http.js).
const FORM_TYPES = [
	'application/x-www-form-urlencoded',
	'multipart/form-data',
	'text/plain',
	'application/x-sveltekit-formdata'
];
const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** The one form a mail provider posts from elsewhere (docs/notifications.md), under any locale's prefix (/es/inbox/unsubscribe). */
const ONE_CLICK_UNSUBSCRIBE = '/inbox/unsubscribe';

/**
 * SvelteKit's CSRF check, done here instead (svelte.config.js turns Kit's off with `trustedOrigins: ['*']`)
 * so that under /api its 403 has the contract's body, `{ error: { code: 'forbidden_origin' } }`; pages
 * keep Kit's answer word for word. A form post whose Origin is not this server's is refused before
 * anything reads it.
 */
export const refuseCrossSiteForms: Handle = ({ event, resolve }) => {
	const { request, url } = event;
	const type = request.headers.get('content-type')?.split(';', 1)[0]!.trim().toLowerCase() ?? '';
	const crossSite =
		UNSAFE_METHODS.has(request.method) &&
		FORM_TYPES.includes(type) &&
		request.headers.get('origin') !== url.origin &&
		// RFC 8058: a mail provider posts the one-click unsubscribe from its own servers; the link's token, not a cookie, authorises it.
		splitLocalePath(routedPath(url.pathname)).path !== ONE_CLICK_UNSUBSCRIBE;
	if (!crossSite) return resolve(event);
	const message = `Cross-site ${request.method} form submissions are forbidden`;
	if (isApiPath(url.pathname)) return jsonError(403, 'forbidden_origin', message);
	if (request.headers.get('accept') === 'application/json') return json({ message }, { status: 403 });
	return text(message, { status: 403 });
};

type Actions = Record<string, unknown> | undefined;

/**
 * Each page's form actions, by route id, loaded when a form is first posted to it; the loaded promise is
 * kept, so later posts do not ask the module loader again (an `import()` of a loaded module is a
 * resolution of a few microseconds, on every post).
 */
const ACTIONS = Object.fromEntries(
	Object.entries(import.meta.glob<Actions>('/src/routes/**/+page.server.ts', { import: 'actions' })).map(
		([file, load]) => {
			let loaded: Promise<Actions> | undefined;
			// A module that failed to load stays failed in the loader's own cache too: the same answer either way.
			const once = () => (loaded ??= load());
			return [file.replace(/^\/src\/routes/, '').replace(/\/\+page\.server\.ts$/, '') || '/', once];
		}
	)
);

/** The action a POST names, read as SvelteKit reads it: the first query key starting with `/`. */
function actionName(url: URL): { name: string; explicit: boolean } {
	for (const [key] of url.searchParams) if (key.startsWith('/')) return { name: key.slice(1), explicit: true };
	return { name: 'default', explicit: false };
}

/**
 * A POST to a page must name one of that page's own actions: SvelteKit 2.70.4 looks the name up in the
 * plain `actions` object, so `?/toString` runs Object.prototype.toString past every guard and `?/__proto__`
 * or `?/default` is a 500 (sveltejs/kit#15525). Anything else is the 404 of an unknown action.
 * Drop this handle once the portal runs a SvelteKit with sveltejs/kit#16072 (not in 2.70.4, the last 2.x here).
 */
export const refuseUnknownActions: Handle = ({ event, resolve }) => {
	const load =
		event.request.method === 'POST' && event.route.id !== null ? ownEntry(ACTIONS, event.route.id) : undefined;
	// Not a form post: passed through without an await of its own.
	if (!load) return resolve(event);
	return load().then((actions) => {
		if (!actions) return resolve(event);
		const { name, explicit } = actionName(event.url);
		if ((explicit && name === 'default') || !ownEntry(actions, name)) unknownPath();
		return resolve(event);
	});
};

// The code of an /api error that SvelteKit answered itself (a method the endpoint does not have, a path under /api that is none).
const API_CODES: Record<number, string> = {
	400: 'invalid_request',
	401: 'unauthenticated',
	403: 'forbidden',
	404: 'not_found',
	405: 'method_not_allowed',
	413: 'body_too_large',
	415: 'unsupported_media_type'
};

/**
 * Every error under /api has the contract's body, `{ error: { code, message } }`, also the ones SvelteKit
 * answers before an endpoint runs (405 as text, 404 as a page); its other headers (`Allow`) are kept.
 */
export const apiErrorBodies: Handle = ({ event, resolve }) =>
	// Pages pass through without an await of their own.
	isApiPath(event.url.pathname) ? withApiErrorBody(resolve(event)) : resolve(event);

async function withApiErrorBody(answer: Response | Promise<Response>): Promise<Response> {
	// An inner handle may answer at once (a refused form post): not always a promise.
	const response = await answer;
	if (response.status < 400) return response;
	if (response.headers.get('content-type')?.startsWith('application/json')) return response;
	const plain = response.headers.get('content-type')?.startsWith('text/plain') ? (await response.text()).trim() : '';
	const message = plain && plain.length <= 200 ? plain : response.statusText || 'The request could not be answered.';
	const headers = new Headers(response.headers);
	headers.delete('content-length');
	headers.delete('content-type');
	return jsonError(response.status, ownEntry(API_CODES, String(response.status)) ?? 'error', message, headers);
}
