/** The signed-in member as the guards resolve it. */
export interface SignedInMember {
	/** Lowercase wallet address. */
	address: string;
	isAdmin: boolean;
}

/** No valid session where a member is required. */
export class UnauthenticatedError extends Error {
	readonly status = 401;
	readonly code = 'unauthenticated';
	constructor() {
		super('Sign in with your wallet to continue.');
		this.name = 'UnauthenticatedError';
	}
}

/** Signed in, but not in ADMIN_ADDRESSES where an admin is required. */
export class ForbiddenError extends Error {
	readonly status = 403;
	readonly code = 'forbidden';
	constructor() {
		super('This needs an admin account.');
		this.name = 'ForbiddenError';
	}
}

/** Resolves the signed-in member, or raises UnauthenticatedError. */
export function requireMember(event: { locals: App.Locals }): SignedInMember {
	const member = event.locals.member;
	if (!member) throw new UnauthenticatedError();
	return member;
}

/** As requireMember, and the address must be in ADMIN_ADDRESSES; otherwise ForbiddenError. */
export function requireAdmin(event: { locals: App.Locals }): SignedInMember {
	const member = requireMember(event);
	if (!member.isAdmin) throw new ForbiddenError();
	return member;
}

/** The member a session's address makes, admin when listed (case-insensitively) in ADMIN_ADDRESSES. */
export function memberFromAddress(address: string, adminAddresses: ReadonlySet<string>): SignedInMember {
	const lower = address.toLowerCase();
	return { address: lower, isAdmin: adminAddresses.has(lower) };
}
