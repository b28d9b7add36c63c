import { error, type RequestEvent } from '@sveltejs/kit';
import type { Role } from '$lib/hidden-sections';

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

/** The roles a hidden section (src/lib/hidden-sections.ts) may be shown to: none for a visitor. */
export function rolesOf(member: SignedInMember | null): Role[] {
	if (!member) return [];
	return member.isAdmin ? ['member', 'admin'] : ['member'];
}

/** The member a session's address makes, admin when listed (case-insensitively) in ADMIN_ADDRESSES. */
export function memberFromAddress(address: string, adminAddresses: ReadonlySet<string>): SignedInMember {
	const lower = address.toLowerCase();
	return { address: lower, isAdmin: adminAddresses.has(lower) };
}
