// The session cookie once signed in: sealed, checked on every use, rotated passwords, sign-out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines } from '../helpers/db';
import {
	me,
	member,
	sessionCodec,
	sessionSetCookie,
	startAuthServer,
	startListening,
	type AuthServer
} from '../helpers/auth';
import { TEST_SESSION_PASSWORD } from '../helpers/server';
import { sessionCookieFrom, signIn } from '../helpers/siwe';

describe.each(engines)('sessions on %s', (engine) => {
	let portal: AuthServer;
	beforeAll(async () => {
		portal = await startAuthServer(engine);
	});
	afterAll(() => portal?.stop());

	it('a cookie flipped by one byte, sealed with another password or past its inner expiry reads as signed out', async () => {
		const { base } = portal;
		const session = await signIn(base, member);
		const value = session.slice('session='.length);
		const right = await sessionCodec();
		const wrong = await sessionCodec('another-password-of-enough-length-0123456789');
		const address = member.address.toLowerCase();

		// Controls: the real cookie and one we seal with the right password both read as signed in.
		expect((await me(base, session)).body.address).toBe(member.address);
		expect(
			(await me(base, `session=${await right.seal({ address, expiresAt: Date.now() + 3_600_000 })}`)).body.address
		).toBe(member.address);

		for (let i = 7; i < value.length; i += Math.ceil(value.length / 12)) {
			const ch = value[i] === 'A' ? 'B' : 'A';
			const flipped = value.slice(0, i) + ch + value.slice(i + 1);
			const seen = await me(base, `session=${flipped}`);
			expect(seen.body, `flipped at ${i}`).toEqual({ address: null, isAdmin: false });
		}
		const foreign = await wrong.seal({ address, expiresAt: Date.now() + 3_600_000 });
		expect((await me(base, `session=${foreign}`)).body.address).toBeNull();
		const expired = await right.seal({ address, expiresAt: Date.now() - 1000 });
		expect((await me(base, `session=${expired}`)).body.address).toBeNull();
		expect((await me(base, 'session=garbage')).body.address).toBeNull();
	});

	it('the inner expiry is checked on every use, also for a cookie read before', async () => {
		const cookie = `session=${await (await sessionCodec()).seal({ address: member.address.toLowerCase(), expiresAt: Date.now() + 4000 })}`;
		expect((await me(portal.base, cookie)).body.address).toBe(member.address);
		await new Promise((r) => setTimeout(r, 4500));
		expect((await me(portal.base, cookie)).body.address).toBeNull();
	});

	it('POST /api/auth/logout answers 204 and clears the cookie, with or without a session', async () => {
		for (const cookie of [undefined, await signIn(portal.base, member)]) {
			const response = await fetch(`${portal.base}/api/auth/logout`, {
				method: 'POST',
				headers: cookie ? { cookie } : {}
			});
			expect(response.status).toBe(204);
			expect(response.headers.get('cache-control')).toBe('no-store');
			expect(sessionCookieFrom(response)).toBe('');
			expect(sessionSetCookie(response)).toMatch(/Max-Age=0/);
		}
	});

	it("a form's post to /api/auth/logout (no scripts) clears the cookie and goes back to its page: 303 to `next` under its locale, never off the site", async () => {
		const cases: [string | null, string][] = [
			['/es?x=1', '/es?x=1'],
			['/zh-Hans/apply', '/zh-Hans/apply'],
			['//evil.example/', '/'],
			['https://evil.example/', '/'],
			[null, '/']
		];
		for (const [next, location] of cases) {
			const cookie = await signIn(portal.base, member);
			const response = await fetch(`${portal.base}/api/auth/logout`, {
				method: 'POST',
				redirect: 'manual',
				headers: {
					cookie,
					origin: portal.base,
					'content-type': 'application/x-www-form-urlencoded'
				},
				body: next === null ? '' : new URLSearchParams({ next }).toString()
			});
			expect(response.status, String(next)).toBe(303);
			expect(response.headers.get('location'), String(next)).toBe(location);
			expect(response.headers.get('cache-control')).toBe('no-store');
			expect(sessionSetCookie(response)).toMatch(/Max-Age=0/);
			expect(sessionCookieFrom(response)).toBe('');
		}
	});

	it('GET /api/auth/me without a session: address null, no-store', async () => {
		const { body, response } = await me(portal.base);
		expect(body).toEqual({ address: null, isAdmin: false });
		expect(response.headers.get('cache-control')).toBe('no-store');
	});
});

describe('session password rotation', () => {
	it('a cookie sealed with SESSION_PASSWORD_PREVIOUS still reads; one sealed with an unknown password does not', async () => {
		const newPassword = 'the-new-session-password-0123456789-xyz';
		const server = await startListening({
			SESSION_PASSWORD: newPassword,
			SESSION_PASSWORD_PREVIOUS: `other-old-password-0123456789-0123456789, ${TEST_SESSION_PASSWORD}`
		});
		try {
			const old = await sessionCodec();
			const unknown = await sessionCodec('never-configured-password-0123456789-abc');
			const data = { address: member.address.toLowerCase(), expiresAt: Date.now() + 3_600_000 };
			expect((await me(server.url, `session=${await old.seal(data)}`)).body.address).toBe(member.address);
			expect((await me(server.url, `session=${await unknown.seal(data)}`)).body.address).toBeNull();
			// New cookies are sealed with the new password: the old codec cannot read them.
			const fresh = await signIn(server.url, member);
			expect(await old.read(fresh.slice('session='.length))).toBeNull();
			expect(await (await sessionCodec(newPassword)).read(fresh.slice('session='.length))).toMatchObject({
				address: data.address
			});
		} finally {
			await server.stop();
		}
	}, 120_000);
});
