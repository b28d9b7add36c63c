// The edge limits against odd spellings of the limited paths, and IPv6 clients: the built portal
// behind a real nginx running the shipped deploy/nginx configuration (docs/edge-limits.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NGINX_BIN, NGINX_MISSING_REASON, roomInMinute, startNginx, type RunningNginx } from '../helpers/nginx';
import { AUTH_SPELLINGS, KNOWN_WALKAROUNDS, PULSE_SPELLINGS } from '../helpers/path-spellings';
import { rawRequest } from '../helpers/raw-http';
import { freePort, startServer, type RunningServer } from '../helpers/server';

const LIMIT = 100;

if (!NGINX_BIN) console.warn(`SKIPPED: ${NGINX_MISSING_REASON}`);

describe.skipIf(!NGINX_BIN)('edge limits in nginx: path spellings and IPv6 clients', { timeout: 180_000 }, () => {
	let portal: RunningServer;
	let edge: RunningNginx;

	beforeAll(async () => {
		portal = await startServer({
			env: {
				ADDRESS_HEADER: 'X-Forwarded-For',
				XFF_DEPTH: '1',
				COMMUNITY_PULSE_REPO: 'example/portal',
				GITHUB_API_URL: `http://127.0.0.1:${await freePort()}`
			}
		});
		// The test plays a trusted load balancer: its X-Forwarded-For names the client.
		edge = await startNginx({ upstream: `127.0.0.1:${portal.port}`, mode: 'enforce', trustedProxies: ['127.0.0.1'] });
	});
	afterAll(async () => {
		await edge?.stop();
		await portal?.stop();
	});

	const reachesNonce = (a: { status: number; body: string }) => a.status === 200 && /"nonce":"/.test(a.body);
	const reachesPulse = (a: { status: number; body: string }) =>
		a.status === 204 ||
		/"code":"upstream_unavailable"/.test(a.body) ||
		(a.status === 200 && a.body.includes('"items"'));

	/** The spellings the portal itself (no nginx) answers as the endpoint. */
	async function routedByPortal(spellings: string[], reaches: (a: { status: number; body: string }) => boolean) {
		const routed: string[] = [];
		for (const s of spellings) if (reaches(await rawRequest(portal.port, s))) routed.push(s);
		return routed;
	}

	for (const [name, spellings, reaches, canonical] of [
		['/api/auth/*', AUTH_SPELLINGS, reachesNonce, '/api/auth/nonce'],
		['/api/community-pulse', PULSE_SPELLINGS, reachesPulse, '/api/community-pulse']
	] as const) {
		it(`after the 100th request, every spelling the portal reads as ${name} gets 429 or 400 from nginx, never the portal`, async () => {
			const routed = await routedByPortal([...spellings], reaches);
			// The list is not vacuous: the known walk-arounds are among what the portal routes there.
			expect(routed).toEqual(expect.arrayContaining(KNOWN_WALKAROUNDS.filter((s) => spellings.includes(s))));
			expect(routed.length).toBeGreaterThan(8);

			const client = { 'X-Forwarded-For': name.includes('auth') ? '203.0.113.70' : '203.0.113.71' };
			await roomInMinute(40);
			for (let i = 0; i < LIMIT; i++)
				expect(reaches(await rawRequest(edge.port, canonical, { headers: client }))).toBe(true);
			// 429 from the limit, or 400 from nginx (its refusal of an ambiguous path, or its own parser's).
			const answers: Record<string, number> = {};
			for (const s of routed) answers[s] = (await rawRequest(edge.port, s, { headers: client })).status;
			expect(Object.entries(answers).filter(([, status]) => status !== 429 && status !== 400)).toEqual([]);
			expect(Object.values(answers)).toContain(429);
		});
	}

	it('a path with \\, %5C or %2F is refused with 400 before any limit is spent', async () => {
		const client = { 'X-Forwarded-For': '203.0.113.72' };
		for (const s of [
			'/api\\auth/nonce',
			'/x/..\\api/auth/nonce',
			'/api%5cauth/nonce',
			'/api%2Fauth/nonce',
			'/apply\\'
		]) {
			const a = await rawRequest(edge.port, s, { headers: client });
			expect(a.status, s).toBe(400);
			expect(JSON.parse(a.body)).toMatchObject({ error: { code: 'invalid_request' } });
		}
		// ... and the client's count is untouched.
		expect(reachesNonce(await rawRequest(edge.port, '/api/auth/nonce', { headers: client }))).toBe(true);
		// A backslash or an encoded slash in the query string is fine.
		expect((await rawRequest(edge.port, '/api/auth/nonce?next=%2Fa\\b', { headers: client })).status).toBe(200);
	});

	it('IPv6 clients count by their /64: two addresses of one /64 share a counter, the next /64 has its own', async () => {
		await roomInMinute(40);
		const send = async (client: string) =>
			(await rawRequest(edge.port, '/api/auth/nonce', { headers: { 'X-Forwarded-For': client } })).status;
		const statuses: number[] = [];
		// 100 requests spread over the addresses of one /64 ...
		for (let i = 0; i < LIMIT; i++)
			statuses.push(await send(`2001:db8:aa:bb:${(i % 7).toString(16)}::${i.toString(16)}`));
		expect(statuses).toEqual(Array(LIMIT).fill(200));
		// ... spend its one allowance: any other address in it is refused,
		expect(await send('2001:db8:aa:bb:ffff:ffff:ffff:fffe')).toBe(429);
		expect(await send('2001:db8:aa:bb::1')).toBe(429);
		// while the neighbouring /64s are still served.
		expect(await send('2001:db8:aa:bc::1')).toBe(200);
		expect(await send('2001:db8:aa:ba:ffff::1')).toBe(200);
	});

	it('IPv4 clients still count per address, also when written as IPv4-mapped IPv6', async () => {
		await roomInMinute(40);
		const send = async (client: string) =>
			(await rawRequest(edge.port, '/api/auth/nonce', { headers: { 'X-Forwarded-For': client } })).status;
		for (let i = 0; i < LIMIT; i++) expect(await send(i % 2 ? '198.51.100.7' : '::ffff:198.51.100.7')).toBe(200);
		expect(await send('198.51.100.7')).toBe(429);
		expect(await send('::ffff:198.51.100.7')).toBe(429);
		// Neither the neighbouring address nor another mapped address shares the count.
		expect(await send('198.51.100.8')).toBe(200);
		expect(await send('::ffff:198.51.100.9')).toBe(200);
	});
});
