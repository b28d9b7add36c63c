// GET /api/auth/nonce as the portal's Node server answers it without SvelteKit (decision 0053, as 0037
// answers the session check): only the exact spelling goes that way, and every answer equals the
// SvelteKit route's (reached through any other spelling, here `/api/auth/nonce?via=sveltekit`) header for
// header, its sealed cookie holding the same session, in each cookie configuration (plain http, an https
// ORIGIN, SAFE_APP_ORIGINS' framed cookie). The sign-in tests (auth-*.test.ts) sign in through it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionCodec, SessionData } from '../../src/lib/server/auth/session';
import { member, sessionCodec } from '../helpers/auth';
import { rawRequest } from '../helpers/raw-http';
import { requestLinesOf, startServer, type RunningServer } from '../helpers/server';

const NONCE_TTL_MS = 15 * 60_000;

describe('GET /api/auth/nonce from the Node server and from SvelteKit', () => {
	let servers: Record<'plain' | 'https' | 'framed', RunningServer>;
	let codec: SessionCodec;
	beforeAll(async () => {
		codec = await sessionCodec();
		const [plain, https, framed] = await Promise.all([
			startServer(),
			// SvelteKit builds each request's URL from ORIGIN: an https one makes the cookie Secure over plain http here.
			startServer({ env: { ORIGIN: 'https://portal.example' } }),
			startServer({ env: { SAFE_APP_ORIGINS: 'https://app.safe.global' } })
		]);
		servers = { plain, https, framed };
	});
	afterAll(() => Promise.all(Object.values(servers ?? {}).map((s) => s.stop())));

	/** Status, headers but the date and request id, the nonce, the cookie's attributes and the session it seals. */
	async function answer(server: RunningServer, target: string, cookie?: string) {
		const response = await fetch(`${server.url}${target}`, { headers: cookie ? { cookie } : {} });
		const setCookie = response.headers.getSetCookie();
		expect(setCookie, target).toHaveLength(1);
		const [pair = '', ...attributes] = (setCookie[0] ?? '').split('; ');
		const [name, sealed] = pair.split('=');
		const session = (await codec.read(decodeURIComponent(sealed ?? ''))) as SessionData;
		const body = (await response.json()) as { nonce: string };
		const headers = [...response.headers].filter(([h]) => !['date', 'x-request-id', 'set-cookie'].includes(h));
		return {
			status: response.status,
			headers: Object.fromEntries(headers),
			bodyKeys: Object.keys(body),
			name,
			// Max-Age is read apart: the two answers come a few milliseconds apart and may round to seconds apart.
			attributes: attributes.filter((a) => !a.startsWith('Max-Age=')),
			maxAge: Number(attributes.find((a) => a.startsWith('Max-Age='))?.slice('Max-Age='.length)),
			nonce: body.nonce,
			session,
			requestId: response.headers.get('x-request-id')
		};
	}

	it('answers every session exactly as the SvelteKit route does, in each cookie configuration', async () => {
		const address = member.address.toLowerCase();
		const now = Date.now();
		const cases: [string, SessionData | string | undefined, 'kept' | 'new'][] = [
			['no cookie', undefined, 'new'],
			['garbage', 'garbage', 'new'],
			['a member, two weeks left', { address, expiresAt: now + 14 * 86_400_000 }, 'kept'],
			['a member, ending before a nonce could be used', { address, expiresAt: now + NONCE_TTL_MS - 60_000 }, 'new'],
			['a member, past its inner expiry', { address, expiresAt: now - 1000 }, 'new'],
			['an earlier nonce', { nonce: 'abcdefgh12345678', expiresAt: now + 60_000 }, 'new']
		];
		for (const [configuration, server] of Object.entries(servers)) {
			for (const [label, session, outcome] of cases) {
				const cookie =
					session === undefined
						? undefined
						: `session=${typeof session === 'string' ? session : await codec.seal(session)}`;
				const what = `${configuration}: ${label}`;
				const node = await answer(server, '/api/auth/nonce', cookie);
				const kit = await answer(server, '/api/auth/nonce?via=sveltekit', cookie);
				const same = ({ nonce: _n, session: _s, maxAge: _m, requestId: _r, ...rest }: typeof node) => rest;
				expect(same(node), what).toEqual(same(kit));
				expect(node.status, what).toBe(200);
				expect(node.bodyKeys, what).toEqual(['nonce']);
				expect(Math.abs(node.maxAge - kit.maxAge), what).toBeLessThanOrEqual(1);
				for (const side of [node, kit]) {
					expect(side.nonce, what).toMatch(/^[A-Za-z0-9]{16,}$/);
					expect(side.session.nonce, what).toBe(side.nonce);
					expect(side.requestId, what).toMatch(/^[0-9a-f-]{36}$/);
					if (outcome === 'kept' && typeof session === 'object') {
						expect(side.session, what).toEqual({ address, nonce: side.nonce, expiresAt: session.expiresAt });
					} else {
						expect(side.session.address, what).toBeUndefined();
						expect(side.maxAge, what).toBeGreaterThanOrEqual(NONCE_TTL_MS / 1000 - 1);
					}
				}
				expect(node.nonce, what).not.toBe(kit.nonce);
			}
		}
		expect((await answer(servers.plain, '/api/auth/nonce')).attributes).toEqual(['Path=/', 'HttpOnly', 'SameSite=Lax']);
		expect((await answer(servers.https, '/api/auth/nonce')).attributes).toEqual([
			'Path=/',
			'HttpOnly',
			'Secure',
			'SameSite=Lax'
		]);
		expect((await answer(servers.framed, '/api/auth/nonce')).attributes).toEqual([
			'Path=/',
			'HttpOnly',
			'Secure',
			'Partitioned',
			'SameSite=None'
		]);
	});

	it('is answered by the Node server itself for the exact spelling only, and every spelling is no-store', async () => {
		const port = servers.plain.port;
		// Only the Node answer keeps the server's own spelling of its headers; SvelteKit's sets them again in lower case.
		expect((await rawRequest(port, '/api/auth/nonce')).headers).toMatch(/^X-Content-Type-Options: nosniff$/m);
		for (const target of ['/api/auth/nonce?via=sveltekit', '/%61pi/auth/nonce', '/api/auth/nonce?']) {
			const answer = await rawRequest(port, target);
			expect([target, answer.status]).toEqual([target, 200]);
			expect(answer.headers, target).toMatch(/^x-content-type-options: nosniff$/m);
			expect(answer.headers, target).toMatch(/^cache-control: no-store$/m);
		}
		const own = await rawRequest(port, '/api/auth/nonce');
		expect(own.status).toBe(200);
		expect(own.headers).toMatch(/^cache-control: no-store$/m);
	});

	it("keeps a proxy's request id of the right shape, and logs the request line SvelteKit logs", async () => {
		const server = servers.plain;
		const id = 'nonce-node-000001';
		for (const [target, requestId] of [
			['/api/auth/nonce', id],
			['/api/auth/nonce?via=sveltekit', `${id}-kit`]
		] as const) {
			const response = await fetch(`${server.url}${target}`, { headers: { 'x-request-id': requestId } });
			expect(response.headers.get('x-request-id')).toBe(requestId);
		}
		expect(await requestLinesOf(server, id)).toEqual(
			[id, `${id}-kit`].map((requestId) => ({
				level: 'info',
				requestId,
				method: 'GET',
				route: '/api/auth/nonce',
				status: 200,
				msg: 'request'
			}))
		);
	});
});
