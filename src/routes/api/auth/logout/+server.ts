import { redirect } from '@sveltejs/kit';
import { runtime } from '$lib/server/platform/runtime';
import {
	SESSION_COOKIE,
	SIGNED_OUT_COOKIE,
	sessionCookieOptions,
	signedOutCookieOptions
} from '$lib/server/auth/session';
import { safeNext } from '$lib/auth/next';
import type { RequestHandler } from './$types';

const FORM_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data'];

/**
 * Destroys the session; answers 204 with or without one (the contract, for fetch callers). A form's post
 * (the header's Sign out on a page without scripts) is sent back with 303 to the page it names in `next`
 * (a path of this site only), else the home page; `reason=account` leaves a one-time notice why.
 */
export const POST: RequestHandler = async ({ cookies, request, url }) => {
	// A Partitioned cookie (SAFE_APP_ORIGINS) is removed only by a Set-Cookie that says Partitioned too.
	cookies.delete(SESSION_COOKIE, sessionCookieOptions(url, 0, runtime().config.safeAppOrigins.length > 0));
	const type = request.headers.get('content-type')?.split(';', 1)[0]!.trim().toLowerCase() ?? '';
	if (!FORM_TYPES.includes(type)) return new Response(null, { status: 204 });
	const form = await request.formData().catch(() => null);
	const next = form?.get('next');
	// The home page's account watcher (src/lib/wallet/home-sign-out.js) says why: the page it comes back
	// to says so once (src/routes/+layout.server.ts).
	if (form?.get('reason') === 'account') cookies.set(SIGNED_OUT_COOKIE, 'account', signedOutCookieOptions(url));
	redirect(303, safeNext(typeof next === 'string' ? next : null, url.origin) ?? '/');
};
