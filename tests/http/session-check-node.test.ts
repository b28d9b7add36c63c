// GET /api/auth/me as the portal's Node server answers it without SvelteKit (decision 0037): only the
// exact spelling goes that way, a failing answer falls back to SvelteKit, and every answer equals the
// SvelteKit route's (reached through any other spelling, here `/api/auth/me?via=sveltekit`) header for header.
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_ANSWERS_EVENT, type NodeAnswer } from '../../deploy/node-answers.js';
import { PRERENDERED_POLICIES_FILE, listenForNodeAnswers, startPortalServer } from '../../deploy/server.js';
import { admin, member, sessionCodec, stranger } from '../helpers/auth';
import { rawRequest } from '../helpers/raw-http';
import { TEST_SESSION_PASSWORD, requestLinesOf, startServer, type RunningServer } from '../helpers/server';

describe('the Node server and the answers the app offers it', () => {
	const servers: Server[] = [];
	let mode: 'answer' | 'reject' | 'throw' | 'throw after writing' = 'answer';
	const answer: NodeAnswer = (_req, res) => {
		if (mode === 'throw') throw new Error('the answer threw at once');
		if (mode === 'reject') return Promise.reject(new Error('the answer failed before writing'));
		res.end('from the Node answer');
		return mode === 'answer' ? Promise.resolve() : Promise.reject(new Error('the answer failed after writing'));
	};
	/** The server with a stand-in for SvelteKit's handler, offered `answer` through the process event. */
	async function start(env: Record<string, string>) {
		const dir = mkdtempSync(path.join(tmpdir(), 'portal-node-answers-'));
		writeFileSync(path.join(dir, PRERENDERED_POLICIES_FILE), '{}');
		const kit = (_req: IncomingMessage, res: ServerResponse) => res.end('from SvelteKit');
		const answers = listenForNodeAnswers();
		(process.emit as (event: string, ...args: unknown[]) => boolean)(NODE_ANSWERS_EVENT, {
			'GET /api/auth/me': answer
		});
		const server = startPortalServer(kit, { dir, env: { PORT: '0', HOST: '127.0.0.1', ...env }, answers });
		servers.push(server);
		await once(server, 'listening');
		return (server.address() as AddressInfo).port;
	}
	let port: number;
	beforeAll(async () => {
		port = await start({ ORIGIN: 'http://127.0.0.1' });
	});
	afterAll(() => {
		for (const server of servers) {
			server.closeAllConnections();
			server.close();
		}
	});

	it('answers only the exact method and request target; every other spelling reaches SvelteKit', async () => {
		const exact = await rawRequest(port, '/api/auth/me');
		expect(exact.body).toBe('from the Node answer');
		// The server's own headers come first, as on every answer.
		expect(exact.headers).toMatch(/^X-Content-Type-Options: nosniff$/im);
		const others: [string, string][] = [
			['GET', '/api/auth/me?'],
			['GET', '/api/auth/me?via=sveltekit'],
			['GET', '/api/auth/me?x=1'],
			['GET', '/api/auth/me/'],
			['GET', '/api/auth/me#'],
			['GET', '/%61pi/auth/me'],
			['GET', '/api/auth/%6de'],
			['GET', '/api//auth/me'],
			['GET', '/api/auth/./me'],
			['GET', '/API/auth/me'],
			['GET', 'http://127.0.0.1/api/auth/me'],
			['HEAD', '/api/auth/me'],
			['POST', '/api/auth/me'],
			['get', '/api/auth/me']
		];
		for (const [method, target] of others) {
			const answer = await rawRequest(port, target, { method });
			if (method === 'HEAD') expect(answer.body, target).toBe('');
			else if (answer.status === 200) expect(answer.body, `${method} ${target}`).toBe('from SvelteKit');
			// Node itself refuses a lowercase method (400) before any handler runs.
			else expect([method, answer.status]).toEqual(['get', 400]);
		}
	});

	it('an answer that throws or rejects before writing leaves the request to SvelteKit; after, the answer stands', async () => {
		try {
			for (const failing of ['throw', 'reject'] as const) {
				mode = failing;
				expect((await rawRequest(port, '/api/auth/me')).body, failing).toBe('from SvelteKit');
			}
			mode = 'throw after writing';
			const written = await rawRequest(port, '/api/auth/me');
			expect([written.status, written.body]).toEqual([200, 'from the Node answer']);
		} finally {
			mode = 'answer';
		}
	});

	it('without ORIGIN (the origin read from each request, which SvelteKit may refuse) SvelteKit answers everything', async () => {
		const withoutOrigin = await start({});
		expect((await rawRequest(withoutOrigin, '/api/auth/me')).body).toBe('from SvelteKit');
	});
});

describe('GET /api/auth/me from the Node server and from SvelteKit', () => {
	const reviewer = stranger;
	const previousPassword = 'previous-session-password-0123456789-abcdef';
	let server: RunningServer;
	beforeAll(async () => {
		server = await startServer({
			env: {
				ADMIN_ADDRESSES: admin.address,
				REVIEWER_ADDRESSES: reviewer.address,
				SESSION_PASSWORD_PREVIOUS: previousPassword
			}
		});
	});
	afterAll(() => server?.stop());

	/** Status, body and headers, without the two that differ on every answer. */
	async function answer(target: string, headers: Record<string, string>) {
		const response = await fetch(`${server.url}${target}`, { headers });
		const kept = [...response.headers].filter(([name]) => name !== 'date' && name !== 'x-request-id');
		return {
			status: response.status,
			body: await response.text(),
			headers: Object.fromEntries(kept),
			requestId: response.headers.get('x-request-id')
		};
	}

	it('answers every session exactly as the SvelteKit route does', async () => {
		const codec = await sessionCodec();
		const previous = await sessionCodec(previousPassword);
		const later = Date.now() + 3_600_000;
		const sealed = (address: string) => codec.seal({ address: address.toLowerCase(), expiresAt: later });
		const memberCookie = await sealed(member.address);
		const cases: [string, string | undefined, string | undefined][] = [
			['no cookie', undefined, undefined],
			['another cookie only', 'theme=dark', undefined],
			['garbage', 'session=garbage', undefined],
			['a member', `session=${memberCookie}`, member.address],
			['a member, among other cookies', `a=1; session=${memberCookie}; b=2`, member.address],
			['the admin', `session=${await sealed(admin.address)}`, admin.address],
			['a reviewer', `session=${await sealed(reviewer.address)}`, reviewer.address],
			[
				'sealed with the previous password',
				`session=${await previous.seal({ address: member.address.toLowerCase(), expiresAt: later })}`,
				member.address
			],
			[
				'past its inner expiry',
				`session=${await codec.seal({ address: member.address.toLowerCase(), expiresAt: Date.now() - 1000 })}`,
				undefined
			],
			['a nonce only', `session=${await codec.seal({ nonce: 'abcdefgh12345678', expiresAt: later })}`, undefined],
			['two session cookies, the garbage first', `session=garbage; session=${memberCookie}`, undefined],
			['two session cookies, the good one first', `session=${memberCookie}; session=garbage`, member.address],
			['percent-encoded', `session=${encodeURIComponent(memberCookie).replaceAll('*', '%2A')}`, member.address],
			['a broken percent escape', 'session=%E0%A4%A', undefined],
			['the password itself', `session=${TEST_SESSION_PASSWORD}`, undefined]
		];
		for (const [label, cookie, address] of cases) {
			const headers: Record<string, string> = cookie ? { cookie } : {};
			const node = await answer('/api/auth/me', headers);
			const kit = await answer('/api/auth/me?via=sveltekit', headers);
			expect(node, label).toEqual({ ...kit, requestId: node.requestId });
			expect(node.status, label).toBe(200);
			expect((JSON.parse(node.body) as { address: unknown }).address, label).toBe(address ?? null);
			for (const id of [node.requestId, kit.requestId]) expect(id, label).toMatch(/^[0-9a-f-]{36}$/);
		}
		const roles = (cookie: string) => answer('/api/auth/me', { cookie }).then((a) => JSON.parse(a.body) as unknown);
		expect(await roles(`session=${await sealed(admin.address)}`)).toEqual({ address: admin.address, isAdmin: true });
		expect(await roles(`session=${await sealed(reviewer.address)}`)).toEqual({
			address: reviewer.address,
			isAdmin: false,
			isReviewer: true
		});
	});

	it('is answered by the Node server itself, and every spelling of it is no-store', async () => {
		// Only the Node answer keeps the server's own spelling of its headers; SvelteKit's sets them again in lower case.
		const own = await rawRequest(server.port, '/api/auth/me');
		expect(own.headers).toMatch(/^X-Content-Type-Options: nosniff$/m);
		const kit = await rawRequest(server.port, '/api/auth/me?via=sveltekit');
		expect(kit.headers).toMatch(/^x-content-type-options: nosniff$/m);
		for (const target of ['/api/auth/me', '/api/auth/me?via=sveltekit', '/%61pi/auth/me', '/api/auth/%6De']) {
			const answer = await rawRequest(server.port, target);
			expect([target, answer.status]).toEqual([target, 200]);
			expect(answer.headers, target).toMatch(/^cache-control: no-store$/im);
		}
	});

	it("keeps a proxy's request id of the right shape and replaces any other, as SvelteKit does", async () => {
		for (const forwarded of [
			'nginx-0123456789abcdef',
			'short',
			'a"}\n{"level":"fake'.replace('\n', ''),
			'x'.repeat(65)
		]) {
			const headers = { 'x-request-id': forwarded };
			const [node, kit] = [await answer('/api/auth/me', headers), await answer('/api/auth/me?via=sveltekit', headers)];
			expect(node.requestId === forwarded, forwarded).toBe(kit.requestId === forwarded);
			expect(node.requestId === forwarded, forwarded).toBe(/^[A-Za-z0-9._-]{8,64}$/.test(forwarded));
		}
	});

	it('logs a request line for each answer the Node server gives, in the same shape', async () => {
		const id = 'session-check-node-0001';
		await answer('/api/auth/me', { 'x-request-id': id });
		await answer('/api/auth/me?via=sveltekit', { 'x-request-id': `${id}-kit` });
		expect(await requestLinesOf(server, id)).toEqual(
			[id, `${id}-kit`].map((requestId) => ({
				level: 'info',
				requestId,
				method: 'GET',
				route: '/api/auth/me',
				status: 200,
				msg: 'request'
			}))
		);
	});
});
