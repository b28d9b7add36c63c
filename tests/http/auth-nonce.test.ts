// GET /api/auth/nonce: the nonce, its sealed 15-minute cookie, and what it keeps of a session.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines } from '../helpers/db';
import {
	errorCode,
	me,
	member,
	sessionCodec,
	sessionSetCookie,
	startAuthServer,
	stranger,
	TTL_SECONDS,
	type AuthServer
} from '../helpers/auth';
import { buildMessage, fetchNonce, postVerify, sessionCookieFrom, signIn } from '../helpers/siwe';

describe.each(engines)('the sign-in nonce on %s', (engine) => {
	let portal: AuthServer;
	beforeAll(async () => {
		portal = await startAuthServer(engine);
	});
	afterAll(() => portal?.stop());

	it('GET /api/auth/nonce issues a fresh alphanumeric nonce in a short-lived sealed cookie', async () => {
		const first = await fetchNonce(portal.base);
		const second = await fetchNonce(portal.base);
		for (const { nonce, response } of [first, second]) {
			expect(nonce).toMatch(/^[A-Za-z0-9]{16,}$/);
			expect(response.headers.get('cache-control')).toBe('no-store');
			const cookie = sessionSetCookie(response);
			expect(cookie).toMatch(/Max-Age=900(;|$)/);
			expect(cookie).toMatch(/HttpOnly/);
			expect(cookie).toMatch(/SameSite=Lax/);
			expect(cookie).toMatch(/Path=\//);
			expect(cookie).not.toMatch(/Secure/);
			// Sealed: the nonce is not readable in the cookie.
			expect(cookie).not.toContain(nonce);
		}
		expect(first.nonce).not.toBe(second.nonce);
		expect(first.cookie).not.toBe(second.cookie);
		// Inside the seal: the nonce, no address, and the same 15-minute expiry as the Max-Age.
		const inside = await (await sessionCodec()).read(first.cookie.slice('session='.length));
		expect(inside?.nonce).toBe(first.nonce);
		expect(inside?.address).toBeUndefined();
		expect(inside!.expiresAt - Date.now()).toBeGreaterThan(800_000);
		expect(inside!.expiresAt - Date.now()).toBeLessThanOrEqual(900_000);
	});

	it('a nonce requested while signed in keeps the session; a failed verify then keeps it too', async () => {
		const { base, host } = portal;
		const session = await signIn(base, member);
		const { nonce, cookie, response } = await fetchNonce(base, session);
		const maxAge = Number(/Max-Age=(\d+)/.exec(sessionSetCookie(response))?.[1]);
		expect(maxAge).toBeGreaterThan(TTL_SECONDS - 120);
		expect(maxAge).toBeLessThanOrEqual(TTL_SECONDS);
		expect((await me(base, cookie)).body.address).toBe(member.address);
		const bad = buildMessage({ domain: host, uri: `http://${host}`, nonce, address: stranger.address, chainId: 1 });
		const failed = await postVerify(
			base,
			{ message: bad, signature: await stranger.signMessage({ message: bad }) },
			cookie
		);
		expect(failed.status).toBe(401);
		const kept = `session=${sessionCookieFrom(failed)}`;
		expect((await me(base, kept)).body.address).toBe(member.address);
		// The nonce left the cookie: the right message for it no longer verifies with the new cookie.
		const good = buildMessage({ domain: host, uri: `http://${host}`, nonce, address: member.address });
		const late = await postVerify(
			base,
			{ message: good, signature: await member.signMessage({ message: good }) },
			kept
		);
		expect(await errorCode(late)).toBe('nonce_mismatch');
	});

	it('a nonce requested by a session about to end starts a fresh 15-minute nonce cookie instead', async () => {
		const codec = await sessionCodec();
		const ending = `session=${await codec.seal({ address: member.address.toLowerCase(), expiresAt: Date.now() + 5 * 60_000 })}`;
		expect((await me(portal.base, ending)).body.address).toBe(member.address);
		const { nonce, cookie, response } = await fetchNonce(portal.base, ending);
		expect(sessionSetCookie(response)).toMatch(/Max-Age=900(;|$)/);
		const inside = await codec.read(cookie.slice('session='.length));
		expect(inside).toMatchObject({ nonce });
		expect(inside?.address).toBeUndefined();
	});
});
