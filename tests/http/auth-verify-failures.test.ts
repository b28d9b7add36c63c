// POST /api/auth/verify refused: one answer per verification rule and per malformed body, each
// dropping the nonce and writing no member.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines } from '../helpers/db';
import {
	errorCode,
	member,
	sessionSetCookie,
	SIGN_IN_FAILURES,
	startAuthServer,
	type AuthServer
} from '../helpers/auth';
import { buildMessage, fetchNonce, postVerify, sessionCookieFrom } from '../helpers/siwe';

describe.each(engines)('refused sign-ins on %s', (engine) => {
	let portal: AuthServer;
	beforeAll(async () => {
		portal = await startAuthServer(engine);
	});
	afterAll(() => portal?.stop());

	it.each(SIGN_IN_FAILURES)('%s → 401 %s, nonce dropped, no member written', async (_label, code, make) => {
		const { nonce, cookie } = await fetchNonce(portal.base);
		const attempt = await make(nonce, portal.host);
		const before = await portal.memberAddresses();
		const response = await postVerify(
			portal.base,
			{ message: attempt.message, signature: attempt.signature },
			attempt.cookie === null ? undefined : (attempt.cookie ?? cookie)
		);
		expect(response.status).toBe(401);
		expect(response.headers.get('cache-control')).toBe('no-store');
		expect(await errorCode(response)).toBe(code);
		expect(sessionCookieFrom(response)).toBe('');
		expect(sessionSetCookie(response)).toMatch(/Max-Age=0/);
		expect(await portal.memberAddresses()).toEqual(before);
	});

	const oversized = JSON.stringify({ message: 'x'.repeat(8 * 1024), signature: '0x00' });
	const badBodies: [string, string][] = [
		['not JSON', 'message=hello&signature=0x00'],
		['truncated JSON', '{"message": "hello", "signature": "0x'],
		['JSON null', 'null'],
		['a JSON array', '["message", "0x00"]'],
		['a number as message', '{"message": 1, "signature": "0x00"}'],
		['a number as signature', '{"message": "hello", "signature": 7}'],
		['no signature', '{"message": "hello"}'],
		['no message', '{"signature": "0x00"}'],
		['an empty object', '{}'],
		['a signature that is not hex', '{"message": "hello", "signature": "0xnothex"}'],
		['a signature without 0x', '{"message": "hello", "signature": "abcd"}'],
		['a signature of odd length', '{"message": "hello", "signature": "0xabc"}'],
		['a body over 8 KiB', oversized]
	];

	it.each(badBodies)('%s → 400 invalid_request, nonce dropped', async (_label, body) => {
		const { cookie } = await fetchNonce(portal.base);
		const before = await portal.memberAddresses();
		const response = await postVerify(portal.base, body, cookie);
		expect(response.status).toBe(400);
		expect(await errorCode(response)).toBe('invalid_request');
		expect(sessionCookieFrom(response)).toBe('');
		expect(await portal.memberAddresses()).toEqual(before);
	});

	it('a streamed body over 8 KiB without Content-Length → 400 invalid_request', async () => {
		const { base, host } = portal;
		const { nonce, cookie } = await fetchNonce(base);
		const text = buildMessage({
			domain: host,
			uri: `http://${host}`,
			nonce,
			address: member.address,
			statement: 's'.repeat(9000)
		});
		const json = JSON.stringify({ message: text, signature: await member.signMessage({ message: text }) });
		const bytes = new TextEncoder().encode(json);
		const stream = new ReadableStream({
			start(controller) {
				for (let i = 0; i < bytes.length; i += 1024) controller.enqueue(bytes.slice(i, i + 1024));
				controller.close();
			}
		});
		const response = await fetch(`${base}/api/auth/verify`, {
			method: 'POST',
			headers: { 'content-type': 'application/json', cookie },
			body: stream,
			duplex: 'half'
		} as RequestInit);
		expect(response.status).toBe(400);
		expect(await errorCode(response)).toBe('invalid_request');
	});
});
