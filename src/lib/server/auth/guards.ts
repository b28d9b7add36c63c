import { error, type RequestEvent } from '@sveltejs/kit';

/** The signed-in member as the guards resolve it. */
export interface SignedInMember {
	/** Lowercase wallet address. */
	address: string;
	isAdmin: boolean;
}

/** /admin and everything under it. */
export const isAdminPath = (pathname: string) => pathname === '/admin' || pathname.startsWith('/admin/');

/** The resolved route is /admin or under it, however the path was spelled (`/%61dmin`, `/admin/__data.json`). */
export const isAdminRoute = (routeId: string | null | undefined) =>
	routeId === '/admin' || !!routeId?.startsWith('/admin/');

/**
 * The signed-in member; otherwise the specification's UnauthenticatedError, thrown as SvelteKit's
 * 401 so that pages show their sign-in prompt and actions answer 401.
 */
export function requireMember(event: Pick<RequestEvent, 'locals'>): SignedInMember {
	const member = event.locals.member;
	if (!member) error(401, { code: 'unauthenticated', message: 'Sign in with your wallet to continue.' });
	return member;
}

/**
 * As requireMember, and the address must be in ADMIN_ADDRESSES; otherwise the specification's
 * ForbiddenError: on /admin the 404 of an unknown path for everyone who is not an admin (the
 * specification's rule "any authorization failure on /admin"), elsewhere 401 or 403.
 */
export function requireAdmin(
	event: Pick<RequestEvent, 'locals' | 'url'> & { route?: { id: string | null } }
): SignedInMember {
	const member = event.locals.member;
	if (member?.isAdmin) return member;
	if (isAdminRoute(event.route?.id) || isAdminPath(event.url.pathname)) error(404, 'Not Found');
	requireMember(event);
	error(403, { code: 'forbidden', message: 'This needs an admin account.' });
}

/**
 * What a visitor's GET /admin renders: the 404 page of an unknown path, so that the admin screen's
 * existence stays hidden. For requests under /admin that SvelteKit would not answer with that page
 * (any method or content type, __data.json, a file download).
 */
export function adminNotFound(event: Pick<RequestEvent, 'fetch'>): Promise<Response> {
	// A path that matches no route, not /admin itself: with routes resolved on the server, the page of an
	// error inside a matched route names that route (its id and nodes) for the client to hydrate.
	return event.fetch(UNMATCHED_PATH, { headers: { accept: 'text/html' }, credentials: 'omit' });
}

/** Matches no route (src/hooks.ts reroutes /admin/… with a trailing slash here too). */
export const UNMATCHED_PATH = '/__no_such_route__/';

/** The member a session's address makes, admin when listed (case-insensitively) in ADMIN_ADDRESSES. */
export function memberFromAddress(address: string, adminAddresses: ReadonlySet<string>): SignedInMember {
	const lower = address.toLowerCase();
	return { address: lower, isAdmin: adminAddresses.has(lower) };
}
