import { error, type RequestEvent } from '@sveltejs/kit';
import type { Role } from '$lib/platform/hidden-sections';

/** The signed-in member as the guards resolve it. */
export interface SignedInMember {
	/** Lowercase wallet address. */
	address: string;
	isAdmin: boolean;
	/** In REVIEWER_ADDRESSES, or an admin (admins are reviewers too); absent means not one. */
	isReviewer?: boolean;
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
 * A reviewer or an admin (docs/decisions/0028-reviewer-votes.md); anyone else gets from /review exactly what
 * an unknown path answers (the hidden section reroutes them before this; this guard is the second lock).
 */
export function requireReviewer(event: Pick<RequestEvent, 'locals'>): SignedInMember {
	const member = event.locals.member;
	if (member && (member.isAdmin || member.isReviewer)) return member;
	error(404, 'Not Found');
}

/** The roles a hidden section (src/lib/platform/hidden-sections.ts) may be shown to: none for a visitor. */
export function rolesOf(member: SignedInMember | null): Role[] {
	if (!member) return [];
	const roles: Role[] = member.isAdmin ? ['member', 'admin'] : ['member'];
	if (member.isAdmin || member.isReviewer) roles.push('reviewer');
	return roles;
}

/**
 * The member a session's address makes: admin when listed (case-insensitively) in ADMIN_ADDRESSES,
 * reviewer when listed in REVIEWER_ADDRESSES or an admin.
 */
export function memberFromAddress(
	address: string,
	adminAddresses: ReadonlySet<string>,
	reviewerAddresses: ReadonlySet<string> = new Set()
): SignedInMember {
	const lower = address.toLowerCase();
	const isAdmin = adminAddresses.has(lower);
	return isAdmin || reviewerAddresses.has(lower)
		? { address: lower, isAdmin, isReviewer: true }
		: { address: lower, isAdmin };
}
