import { runtime } from '$lib/server/platform/runtime';
import { SESSION_COOKIE, sessionCookieOptions } from '$lib/server/auth/session';
import type { RequestHandler } from './$types';

/** Destroys the session; answers 204 with or without one. */
export const POST: RequestHandler = ({ cookies, url }) => {
	// A Partitioned cookie (SAFE_APP_ORIGINS) is removed only by a Set-Cookie that says Partitioned too.
	cookies.delete(SESSION_COOKIE, sessionCookieOptions(url, 0, runtime().config.safeAppOrigins.length > 0));
	return new Response(null, { status: 204 });
};
