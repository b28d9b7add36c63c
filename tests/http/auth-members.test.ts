// The members table after sign-ins: who signed in, and never who only failed to.
import { describe, expect, it } from 'vitest';
import { engines } from '../helpers/db';
import { admin, member, SIGN_IN_FAILURES, startAuthServer, stranger } from '../helpers/auth';
import { fetchNonce, postVerify, signIn } from '../helpers/siwe';

describe.each(engines)('the members table on %s', (engine) => {
	it('holds exactly those who signed in, with their latest sign-in recorded, and none who only failed', async () => {
		const portal = await startAuthServer(engine);
		try {
			await signIn(portal.base, member);
			await signIn(portal.base, admin);
			for (const [label, , make] of SIGN_IN_FAILURES) {
				const { nonce, cookie } = await fetchNonce(portal.base);
				const attempt = await make(nonce, portal.host);
				const response = await postVerify(
					portal.base,
					{ message: attempt.message, signature: attempt.signature },
					attempt.cookie === null ? undefined : (attempt.cookie ?? cookie)
				);
				expect(response.status, label).toBe(401);
			}
			await signIn(portal.base, member);

			const rows = await portal.membersTable();
			expect(rows.map((r) => r.address)).toEqual([admin.address, member.address].map((a) => a.toLowerCase()).sort());
			expect(rows.map((r) => r.address)).not.toContain(stranger.address.toLowerCase());
			// The member signed in twice: the upsert moved last_signed_in_at past created_at.
			const again = rows.find((r) => r.address === member.address.toLowerCase())!;
			expect(new Date(again.last_signed_in_at).getTime()).toBeGreaterThan(new Date(again.created_at).getTime());
		} finally {
			await portal.stop();
		}
	}, 120_000);
});
