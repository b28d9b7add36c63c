import { isHttpError } from '@sveltejs/kit';
import { describe, expect, it } from 'vitest';
import {
	memberFromAddress,
	requireAdmin,
	requireMember,
	requireReviewer,
	rolesOf,
	type SignedInMember
} from './guards';

const member: SignedInMember = { address: '0x' + 'a'.repeat(40), isAdmin: false };
const admin: SignedInMember = { address: '0x' + 'b'.repeat(40), isAdmin: true };
const at = (path: string, who: SignedInMember | null) => ({
	locals: { session: null, member: who },
	url: new URL(`http://localhost${path}`)
});

/** The status and body of the SvelteKit error `guard` throws. */
function thrown(guard: () => unknown) {
	try {
		guard();
	} catch (err) {
		if (isHttpError(err)) return { status: err.status, body: err.body };
		throw err;
	}
	throw new Error('the guard let the request through');
}

describe('requireMember', () => {
	it('resolves the signed-in member; without one, 401 unauthenticated', () => {
		expect(requireMember(at('/apply', member))).toBe(member);
		expect(thrown(() => requireMember(at('/apply', null)))).toMatchObject({
			status: 401,
			body: { code: 'unauthenticated' }
		});
	});
});

describe('requireAdmin', () => {
	it('resolves an admin anywhere', () => {
		expect(requireAdmin(at('/admin', admin))).toBe(admin);
		expect(requireAdmin(at('/elsewhere', admin))).toBe(admin);
	});

	it('any authorization failure on /admin is a 404', () => {
		for (const who of [null, member]) {
			expect(thrown(() => requireAdmin(at('/admin', who))).status).toBe(404);
			expect(thrown(() => requireAdmin(at('/admin/allowlist.csv', who))).status).toBe(404);
		}
	});

	it('outside /admin: 401 without a member, 403 forbidden for a member who is not an admin', () => {
		expect(thrown(() => requireAdmin(at('/administrators', null))).status).toBe(401);
		expect(thrown(() => requireAdmin(at('/administrators', member)))).toMatchObject({
			status: 403,
			body: { code: 'forbidden' }
		});
	});
});

describe('requireReviewer and the reviewer role', () => {
	const reviewer = memberFromAddress('0x' + 'C'.repeat(40), new Set(), new Set(['0x' + 'c'.repeat(40)]));
	it('REVIEWER_ADDRESSES and every admin are reviewers; anyone else gets the 404 of an unknown path', () => {
		expect(reviewer).toEqual({ address: '0x' + 'c'.repeat(40), isAdmin: false, isReviewer: true, role: 'reviewer' });
		expect(memberFromAddress(admin.address, new Set([admin.address]))).toMatchObject({ isReviewer: true });
		expect(rolesOf(reviewer)).toEqual(['member', 'reviewer']);
		expect(rolesOf(admin)).toEqual(['member', 'admin', 'reviewer']);
		expect(rolesOf(member)).toEqual(['member']);
		expect(requireReviewer(at('/review', reviewer))).toBe(reviewer);
		expect(requireReviewer(at('/review', admin))).toBe(admin);
		for (const who of [member, null]) expect(thrown(() => requireReviewer(at('/review', who))).status).toBe(404);
	});
});
