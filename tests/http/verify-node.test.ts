// POST /api/auth/verify as the portal's Node server answers it without SvelteKit (decision 0053): only a
// plain JSON post (Content-Length within the limits, no Transfer-Encoding) goes that way, and each of its
// answers equals the SvelteKit route's (reached through another spelling, `/api/auth/verify?via=sveltekit`)
// for the same cookie and body: status, body, every header but the date and request id, the cookie's
// attributes and the session it seals. The nonce lives in the cookie only, so one attempt can go both ways.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionCodec, SessionData } from '../../src/lib/server/auth/session';
import { SIGN_IN_FAILURES, admin, member, sessionCodec } from '../helpers/auth';
import { startServer, type RunningServer } from '../helpers/server';
import { buildMessage } from '../helpers/siwe';

type Sent = { body: string | Buffer; cookie?: string | null; type?: string; headers?: Record<string, string> };

describe('POST /api/auth/verify from the Node server and from SvelteKit', () => {
	let server: RunningServer;
	let codec: SessionCodec;
	let host: string;
	beforeAll(async () => {
		codec = await sessionCodec();
		server = await startServer({ env: { ADMIN_ADDRESSES: admin.address } });
		host = new URL(server.url).host;
	});
	afterAll(() => server?.stop());

	/** A nonce and its cookie, from the server. */
	async function nonce() {
		const response = await fetch(`${server.url}/api/auth/nonce`);
		const cookie = response.headers.getSetCookie()[0]!.split(';')[0]!;
		return { nonce: ((await response.json()) as { nonce: string }).nonce, cookie };
	}

	/** The answer to `sent` at `target`, with raw header names (the Node answer keeps the server's own spelling). */
	function post(target: string, sent: Sent) {
		return new Promise<{ status: number; headers: Record<string, string>; raw: string[]; body: string }>(
			(resolve, reject) => {
				const req = request(`${server.url}${target}`, {
					method: 'POST',
					headers: {
						'content-type': sent.type ?? 'application/json',
						...(sent.cookie ? { cookie: sent.cookie } : {}),
						...sent.headers
					}
				});
				req.on('error', reject);
				req.on('response', (res) => {
					const chunks: Buffer[] = [];
					res.on('data', (c: Buffer) => chunks.push(c));
					res.on('end', () =>
						resolve({
							status: res.statusCode ?? 0,
							headers: Object.fromEntries(
								Object.entries(res.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join('\n') : String(v)])
							),
							raw: res.rawHeaders,
							body: Buffer.concat(chunks).toString('utf8')
						})
					);
				});
				req.end(sent.body);
			}
		);
	}

	/** What must be equal on both ways, and the session the cookie seals (null: cleared). */
	async function answer(target: string, sent: Sent) {
		const got = await post(target, sent);
		const [pair = '', ...attributes] = (got.headers['set-cookie'] ?? '').split('; ');
		const value = pair.slice('session='.length);
		const session = value ? ((await codec.read(decodeURIComponent(value))) as SessionData) : null;
		const { date: _d, 'x-request-id': requestId, 'set-cookie': _c, ...headers } = got.headers;
		return {
			status: got.status,
			body: got.body,
			headers,
			attributes: attributes.filter((a) => !a.startsWith('Max-Age=')),
			maxAge: Number(attributes.find((a) => a.startsWith('Max-Age='))?.slice('Max-Age='.length)),
			session,
			requestId,
			ownSpelling: got.raw.includes('X-Content-Type-Options')
		};
	}

	/** Sends `sent` both ways; the two answers, checked equal. */
	async function bothWays(label: string, sent: Sent) {
		const node = await answer('/api/auth/verify', sent);
		const kit = await answer('/api/auth/verify?via=sveltekit', sent);
		const same = ({ session, maxAge, requestId: _r, ownSpelling: _o, ...rest }: typeof node) => ({
			...rest,
			// A new session expires from the moment it is made: the two are made milliseconds apart.
			session: session && { ...session, expiresAt: Math.round(session.expiresAt / 60_000) },
			maxAge: Math.round(maxAge / 60)
		});
		expect(same(node), label).toEqual(same(kit));
		expect(kit.ownSpelling, label).toBe(false);
		return { node, kit };
	}

	it('answers every refused sign-in exactly as the SvelteKit route does, and by itself', async () => {
		for (const [label, code, make] of SIGN_IN_FAILURES) {
			const issued = await nonce();
			const attempt = await make(issued.nonce, host);
			const cookie = attempt.cookie === null ? null : (attempt.cookie ?? issued.cookie);
			const { node } = await bothWays(label, {
				body: JSON.stringify({ message: attempt.message, signature: attempt.signature }),
				cookie
			});
			expect([label, node.status, JSON.parse(node.body)]).toEqual([label, 401, expect.objectContaining({})]);
			expect((JSON.parse(node.body) as { error: { code: string } }).error.code, label).toBe(code);
			// The nonce is dropped: the cookie is cleared.
			expect(node.session, label).toBeNull();
			expect(node.ownSpelling, label).toBe(true);
		}
	});

	it('answers bad bodies and a kept session as the route does; leaves other requests to SvelteKit', async () => {
		const later = Date.now() + 3_600_000;
		const signedIn = `session=${await codec.seal({ address: member.address.toLowerCase(), expiresAt: later })}`;
		const issued = await nonce();
		const cases: [string, Sent, number, boolean][] = [
			['not JSON', { body: 'nope', cookie: issued.cookie }, 400, true],
			['an empty body', { body: '', cookie: issued.cookie }, 400, true],
			['the wrong shape', { body: '{"message":"x"}', cookie: issued.cookie }, 400, true],
			['a signature not hex', { body: '{"message":"x","signature":"0xzz"}', cookie: issued.cookie }, 400, true],
			['bytes that are not UTF-8', { body: Buffer.from([0x7b, 0xff, 0x7d]), cookie: issued.cookie }, 400, true],
			['a refusal keeps a signed-in session', { body: 'nope', cookie: signedIn }, 400, true],
			[
				'JSON with its charset',
				{ body: 'nope', cookie: issued.cookie, type: 'application/json; charset=utf-8' },
				400,
				true
			],
			['over 8 KiB', { body: `{"message":"${'x'.repeat(8200)}"}`, cookie: issued.cookie }, 400, false],
			['text/plain from no origin', { body: '{}', cookie: issued.cookie, type: 'text/plain' }, 403, false],
			['another JSON type', { body: '{}', cookie: issued.cookie, type: 'application/ld+json' }, 400, false]
		];
		for (const [label, sent, status, own] of cases) {
			const { node } = await bothWays(label, sent);
			expect([label, node.status, node.ownSpelling]).toEqual([label, status, own]);
		}
		const kept = await answer('/api/auth/verify', { body: 'nope', cookie: signedIn });
		expect(kept.session).toEqual({ address: member.address.toLowerCase(), expiresAt: later });
	});

	it('signs in as the route does: the body, the 14-day session, the admin flag; logged as the route is', async () => {
		for (const account of [member, admin]) {
			for (const target of ['/api/auth/verify', '/api/auth/verify?via=sveltekit']) {
				const issued = await nonce();
				const message = buildMessage({
					domain: host,
					uri: `http://${host}`,
					nonce: issued.nonce,
					address: account.address
				});
				const signature = await account.signMessage({ message });
				const got = await answer(target, {
					body: JSON.stringify({ message, signature }),
					cookie: issued.cookie,
					headers: { 'x-request-id': `verify-node-${target.length}-${account === admin ? 'admin' : 'member'}` }
				});
				expect([target, got.status, got.ownSpelling]).toEqual([target, 200, target === '/api/auth/verify']);
				expect(JSON.parse(got.body)).toEqual({ address: account.address, isAdmin: account === admin });
				expect(got.session?.address).toBe(account.address.toLowerCase());
				expect(got.session?.nonce).toBeUndefined();
				expect(Math.abs(got.maxAge - 1_209_600)).toBeLessThanOrEqual(1);
				expect(got.attributes).toEqual(['Path=/', 'HttpOnly', 'SameSite=Lax']);
				expect(got.headers['cache-control']).toBe('no-store');
			}
		}
		// Request lines are written in batches, at least every quarter of a second.
		await new Promise((resolve) => setTimeout(resolve, 600));
		const lines = server
			.output()
			.split('\n')
			.filter((line) => line.includes('"verify-node-'))
			.map((line) => JSON.parse(line) as Record<string, unknown>);
		expect(lines.map(({ time: _t, durationMs: _d, requestId: _r, ...rest }) => rest)).toEqual(
			Array.from({ length: 4 }, () => ({
				level: 'info',
				method: 'POST',
				route: '/api/auth/verify',
				status: 200,
				msg: 'request'
			}))
		);
	});
});
