import { redirect } from '@sveltejs/kit';
import { safeNext } from '$lib/auth/next';
import { rememberLocaleChosen } from '$lib/server/i18n/offer';
import type { RequestHandler } from './$types';

const FORM_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data'];

/**
 * The language offer's "No, thanks" (src/lib/components/layout/LocaleOffer.svelte): remembers the choice in
 * a cookie. A form's post (a page without scripts) goes back with 303 to its `next` (a path of this site),
 * else the home page; any other caller gets 204.
 */
export const POST: RequestHandler = async ({ cookies, request, url }) => {
	rememberLocaleChosen(cookies, url);
	const type = request.headers.get('content-type')?.split(';', 1)[0]!.trim().toLowerCase() ?? '';
	if (!FORM_TYPES.includes(type)) return new Response(null, { status: 204 });
	const next = await request
		.formData()
		.then((form) => form.get('next'))
		.catch(() => null);
	redirect(303, safeNext(typeof next === 'string' ? next : null, url.origin) ?? '/');
};
