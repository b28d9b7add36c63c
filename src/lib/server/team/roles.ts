import type { SignedInMember, TeamRole } from '../auth/guards';

/** One row of `team_members` as the roles read it: a role of every programme (`programId` null) or of one. */
export interface TeamGrant {
	role: TeamRole;
	programId: number | null;
}

export const TEAM_ROLES: readonly TeamRole[] = ['owner', 'admin', 'reviewer'];

/**
 * The member an address makes (issue 59): an owner when in ADMIN_ADDRESSES or the team's owners; else an
 * admin when the team has them as one (of every programme, or of the programmes listed); else a reviewer
 * (REVIEWER_ADDRESSES or the team). `isAdmin` for owners and admins; `programIds` only for one limited to
 * some programmes: the scope of their highest role.
 */
export function effectiveMember(
	address: string,
	configuredOwners: ReadonlySet<string>,
	configuredReviewers: ReadonlySet<string>,
	grants: readonly TeamGrant[]
): SignedInMember {
	const lower = address.toLowerCase();
	if (configuredOwners.has(lower) || grants.some((g) => g.role === 'owner'))
		return { address: lower, isAdmin: true, isReviewer: true, role: 'owner' };
	const scopeOf = (role: TeamRole, everywhere = false): number[] | null | undefined => {
		const mine = grants.filter((g) => g.role === role);
		if (everywhere || mine.some((g) => g.programId === null)) return null;
		return mine.length ? [...new Set(mine.map((g) => g.programId!))].sort((a, b) => a - b) : undefined;
	};
	const admin = scopeOf('admin');
	if (admin !== undefined)
		return admin === null
			? { address: lower, isAdmin: true, isReviewer: true, role: 'admin' }
			: { address: lower, isAdmin: true, isReviewer: true, role: 'admin', programIds: admin };
	const reviewer = scopeOf('reviewer', configuredReviewers.has(lower));
	if (reviewer !== undefined)
		return reviewer === null
			? { address: lower, isAdmin: false, isReviewer: true, role: 'reviewer' }
			: { address: lower, isAdmin: false, isReviewer: true, role: 'reviewer', programIds: reviewer };
	return { address: lower, isAdmin: false };
}

/** Whether a member may see and act on an application of `programId` (every programme unless limited). */
export const inScope = (member: Pick<SignedInMember, 'programIds'>, programId: number) =>
	!member.programIds || member.programIds.includes(programId);
