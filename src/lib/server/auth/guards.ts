import { error, type RequestEvent } from '@sveltejs/kit';
import type { Role } from '$lib/platform/hidden-sections';
import { effectiveMember, type TeamGrant } from '../team/roles';
import { m } from '$lib/paraglide/messages';
import { unknownPath } from '../platform/not-found';

/** A role in the team (issue 59): owners (ADMIN_ADDRESSES and the team's) and admins are admins. */
export type TeamRole = 'owner' | 'admin' | 'reviewer';

/** The signed-in member as the guards resolve it. */
export interface SignedInMember {
	/** Lowercase wallet address. */
	address: string;
	/** An owner or an admin (of every programme or of some). */
	isAdmin: boolean;
	/** A reviewer, or an admin (admins are reviewers too); absent means not one. */
	isReviewer?: boolean;
	/** Their highest role in the team; absent for a member who is none. */
	role?: TeamRole;
	/**
	 * The programmes an admin or reviewer of some programmes only may see and act on (their applications,
	 * votes, CSV rows); absent means every programme.
	 */
	programIds?: number[];
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
	if (!member) error(401, { code: 'unauthenticated', message: m.error_sign_in_to_continue() });
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
	if (isAdminRoute(event.route?.id) || isAdminPath(event.url.pathname)) unknownPath();
	requireMember(event);
	error(403, { code: 'forbidden', message: m.error_needs_admin() });
}

/**
 * As requireAdmin, and an admin of every programme: the community-wide pages (the form, programmes,
 * reviewers' settings, batches, webhooks, insights) are the unknown path's 404 to an admin of some
 * programmes only, as to anyone else who is not an admin (issue 59).
 */
export function requireWholeAdmin(
	event: Pick<RequestEvent, 'locals' | 'url'> & { route?: { id: string | null } }
): SignedInMember {
	const member = requireAdmin(event);
	if (member.programIds) unknownPath();
	return member;
}

/** An owner: who may add and remove admins (issue 59). */
export const isOwner = (member: SignedInMember) => member.role === 'owner';

/**
 * A reviewer or an admin (docs/decisions/0028-reviewer-votes.md); anyone else gets from /review exactly what
 * an unknown path answers (the hidden section reroutes them before this; this guard is the second lock).
 */
export function requireReviewer(event: Pick<RequestEvent, 'locals'>): SignedInMember {
	const member = event.locals.member;
	if (member && (member.isAdmin || member.isReviewer)) return member;
	unknownPath();
}

/** The roles a hidden section (src/lib/platform/hidden-sections.ts) may be shown to: none for a visitor. */
export function rolesOf(member: SignedInMember | null): Role[] {
	if (!member) return [];
	const roles: Role[] = member.isAdmin ? ['member', 'admin'] : ['member'];
	if (member.isAdmin || member.isReviewer) roles.push('reviewer');
	return roles;
}

/**
 * The member a session's address makes from the configuration alone: an owner when listed
 * (case-insensitively) in ADMIN_ADDRESSES, a reviewer when listed in REVIEWER_ADDRESSES; the team's rows
 * (`grants`) add roles (`effectiveMember`, issue 59).
 */
export function memberFromAddress(
	address: string,
	adminAddresses: ReadonlySet<string>,
	reviewerAddresses: ReadonlySet<string> = new Set(),
	grants: readonly TeamGrant[] = []
): SignedInMember {
	return effectiveMember(address, adminAddresses, reviewerAddresses, grants);
}
