import { SESSION_COOKIE, sessionCookieOptions } from '$lib/server/session';
import type { RequestHandler } from './$types';

/** Destroys the session; answers 204 with or without one. */
export const POST: RequestHandler = ({ cookies, url }) => {
	cookies.delete(SESSION_COOKIE, sessionCookieOptions(url, 0));
	return new Response(null, { status: 204 });
};
