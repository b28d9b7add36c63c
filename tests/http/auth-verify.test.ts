// POST /api/auth/verify when the message is right: the session, the admin flag, and what cannot be forged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines } from '../helpers/db';
import { parseJson, readJson } from '../helpers/json';
import {
	admin,
	errorCode,
	me,
	member,
	postWithHost,
	rsvSignature,
	SECP256K1_N,
	sessionSetCookie,
	splitSignature,
	startAuthServer,
	startListening,
	stranger,
	TTL_SECONDS,
	type AuthServer
} from '../helpers/auth';
import type { Hex } from 'viem';
import { buildMessage, fetchNonce, postVerify, sessionCookieFrom, signIn } from '../helpers/siwe';

describe.each(engines)('signing in through the built server on %s', (engine) => {
	let portal: AuthServer;
	beforeAll(async () => {
		portal = await startAuthServer(engine);
	});
	afterAll(() => portal?.stop());

	it('signs in: 200 with the checksummed address, a 14-day session, the member upserted', async () => {
		const { base, host } = portal;
		const { nonce, cookie } = await fetchNonce(base);
		const text = buildMessage({ domain: host, uri: `http://${host}`, nonce, address: member.address });
		const response = await postVerify(
			base,
			{ message: text, signature: await member.signMessage({ message: text }) },
			cookie
		);
		expect(response.status).toBe(200);
		expect(response.headers.get('cache-control')).toBe('no-store');
		expect(await readJson(response)).toEqual({ address: member.address, isAdmin: false });
		const setCookie = sessionSetCookie(response);
		expect(setCookie).toMatch(new RegExp(`Max-Age=${TTL_SECONDS}(;|$)`));
		expect(setCookie).toMatch(/HttpOnly/);
		const session = `session=${sessionCookieFrom(response)}`;
		const seen = await me(base, session);
		expect(seen.body).toEqual({ address: member.address, isAdmin: false });
		// Viewing does not extend the session: no new cookie.
		expect(seen.response.headers.getSetCookie()).toEqual([]);
		const rows = await portal.memberAddresses();
		if (rows) expect(rows).toContain(member.address.toLowerCase());
	});

	it('signs in with v as 27/28 or 0/1 and with a high s, as viem accepted them (libsecp256k1 recovery)', async () => {
		const { base, host } = portal;
		const variants: [string, (parts: ReturnType<typeof splitSignature>) => Hex][] = [
			['v as signed (27 or 28)', ({ r, s, v }) => rsvSignature(r, s, v)],
			['v as 0 or 1', ({ r, s, v }) => rsvSignature(r, s, v - 27)],
			['a high s (n - s) with the other v', ({ r, s, v }) => rsvSignature(r, SECP256K1_N - s, v === 27 ? 28 : 27)],
			['upper-case hex', ({ r, s, v }) => rsvSignature(r, s, v).toUpperCase().replace('0X', '0x') as Hex]
		];
		for (const [label, reshape] of variants) {
			const { nonce, cookie } = await fetchNonce(base);
			const text = buildMessage({ domain: host, uri: `http://${host}`, nonce, address: member.address });
			const signature = reshape(splitSignature(await member.signMessage({ message: text })));
			const response = await postVerify(base, { message: text, signature }, cookie);
			expect(response.status, label).toBe(200);
			expect(await readJson(response), label).toEqual({ address: member.address, isAdmin: false });
		}
	});

	it('an admin in ADMIN_ADDRESSES (any case) signs in with isAdmin true', async () => {
		const cookie = await signIn(portal.base, admin);
		expect((await me(portal.base, cookie)).body).toEqual({ address: admin.address, isAdmin: true });
	});

	it('a replay of the signed message with the cookie verify returned is refused', async () => {
		const { base, host } = portal;
		const { nonce, cookie } = await fetchNonce(base);
		const text = buildMessage({ domain: host, uri: `http://${host}`, nonce, address: member.address });
		const body = { message: text, signature: await member.signMessage({ message: text }) };
		const first = await postVerify(base, body, cookie);
		expect(first.status).toBe(200);
		const returned = `session=${sessionCookieFrom(first)}`;
		const replay = await postVerify(base, body, returned);
		expect(replay.status).toBe(401);
		expect(await errorCode(replay)).toBe('nonce_mismatch');
		// A failed attempt does not sign out who was signed in; it only drops the nonce.
		const after = `session=${sessionCookieFrom(replay)}`;
		expect((await me(base, after)).body.address).toBe(member.address);
	});

	it('request fields beside message and signature override nothing', async () => {
		const { base, host } = portal;
		const { nonce, cookie } = await fetchNonce(base);
		const text = buildMessage({ domain: host, uri: `http://${host}`, nonce, address: member.address });
		const response = await postVerify(
			base,
			{
				message: text,
				signature: await member.signMessage({ message: text }),
				address: admin.address,
				domain: 'portal.example',
				chainId: 1
			},
			cookie
		);
		expect(response.status).toBe(200);
		expect(await readJson(response)).toEqual({ address: member.address, isAdmin: false });
	});
});

describe('the Host header is never consulted', () => {
	it('a Host header that matches a spoofed message domain is still refused', async () => {
		// No ORIGIN: this server takes its URL from the Host header, so a spoofed Host would reach event.url.
		const server = await startListening({ ORIGIN: undefined });
		try {
			const { nonce, cookie, response: nonceResponse } = await fetchNonce(server.url);
			// adapter-node assumes https without ORIGIN, so the cookie is Secure there (production).
			expect(sessionSetCookie(nonceResponse)).toMatch(/Secure/);
			const text = buildMessage({
				domain: 'portal.example',
				uri: 'http://portal.example',
				nonce,
				address: stranger.address
			});
			const body = JSON.stringify({ message: text, signature: await stranger.signMessage({ message: text }) });
			const response = await postWithHost(`${server.url}/api/auth/verify`, 'portal.example', body, cookie);
			expect(response.status).toBe(401);
			expect(parseJson(response.body)).toMatchObject({ error: { code: 'domain_not_allowed' } });
			// The refusal names the address that is allowed, so an operator at the wrong address knows where to go.
			const allowedHost = new URL(server.url).host;
			expect(parseJson<{ error: { message: string } }>(response.body).error.message).toBe(
				`This portal accepts sign-ins made at ${allowedHost}, not at portal.example: open it there and sign in again.`
			);
			// Control: the same request for the allowed domain, Host spoofed, succeeds on the message alone.
			const next = await fetchNonce(server.url);
			const host = new URL(server.url).host;
			const good = buildMessage({ domain: host, uri: `http://${host}`, nonce: next.nonce, address: member.address });
			const goodBody = JSON.stringify({ message: good, signature: await member.signMessage({ message: good }) });
			expect(
				(await postWithHost(`${server.url}/api/auth/verify`, 'portal.example', goodBody, next.cookie)).status
			).toBe(200);
		} finally {
			await server.stop();
		}
	}, 120_000);
});
