import { request as httpRequest } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import postgres from 'postgres';
import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSessionCodec } from '../../src/lib/server/session';
import { createServerDatabase, dropServerDatabase, engines, migrateServerDatabase, serverUrl } from '../helpers/db';
import { startServer, TEST_SESSION_PASSWORD, type RunningServer } from '../helpers/server';
import {
	buildMessage,
	fetchNonce,
	postVerify,
	sessionCookieFrom,
	signIn,
	testAccount,
	type MessageFields
} from '../helpers/siwe';
import { proxyFor } from '../helpers/tcp-proxy';

const TTL_SECONDS = 1_209_600;
const member = testAccount('member');
const admin = testAccount('admin');
// Signs every failing attempt, so it must never appear in the members table.
const stranger = testAccount('other');
const minutes = (n: number) => new Date(Date.now() + n * 60_000);

const servers: RunningServer[] = [];
const databases: string[] = [];
afterAll(async () => {
	await Promise.all(servers.map((s) => s.stop()));
	for (const url of databases) await dropServerDatabase(url);
});
async function start(env: Record<string, string | undefined>) {
	const server = await startServer({ env });
	servers.push(server);
	if (server.process.exitCode !== null) throw new Error(`server exited:\n${server.output()}`);
	return server;
}

async function errorCode(response: Response): Promise<string | undefined> {
	const body = (await response.json()) as { error?: { code?: string } };
	return body.error?.code;
}

async function me(baseUrl: string, cookie?: string) {
	const response = await fetch(`${baseUrl}/api/auth/me`, { headers: cookie ? { cookie } : {} });
	expect(response.status).toBe(200);
	return { body: (await response.json()) as { address: string | null; isAdmin: boolean }, response };
}

/** The Set-Cookie header of the session cookie, for its attributes. */
function sessionSetCookie(response: Response): string {
	return response.headers.getSetCookie().find((h) => h.startsWith('session=')) ?? '';
}

/** A raw HTTP POST with a chosen Host header (fetch does not let a caller set one). */
function postWithHost(
	url: string,
	host: string,
	body: string,
	cookie: string
): Promise<{ status: number; body: string }> {
	return new Promise((resolve, reject) => {
		const req = httpRequest(
			url,
			{
				method: 'POST',
				headers: { host, cookie, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }
			},
			(res) => {
				let text = '';
				res.on('data', (chunk) => (text += chunk));
				res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
			}
		);
		req.on('error', reject);
		req.end(body);
	});
}

describe.each(engines)('sign-in with Ethereum through the built server on %s', (engine) => {
	let server: RunningServer;
	let base: string;
	let host: string;
	let pgliteDir = '';
	let sql: postgres.Sql | null = null;
	const signedIn = new Set<string>();

	beforeAll(async () => {
		const env: Record<string, string | undefined> = {
			ADMIN_ADDRESSES: ` ${admin.address.toUpperCase().replace('0X', '0x')} `
		};
		if (engine === 'postgres') {
			const url = await createServerDatabase();
			databases.push(url);
			await migrateServerDatabase(url);
			env.DATABASE_URL = url;
			sql = postgres(url, { max: 1, onnotice: () => {} });
		} else {
			pgliteDir = mkdtempSync(path.join(tmpdir(), 'portal-auth-'));
			env.PGLITE_DATA_DIR = pgliteDir;
		}
		server = await start(env);
		base = server.url;
		host = new URL(base).host;
	});
	afterAll(async () => {
		await sql?.end();
	});

	/** The members table now (a Postgres server can be read while the app runs; PGlite only after it stops). */
	async function memberRows(): Promise<string[] | null> {
		if (!sql) return null;
		return (await sql<{ address: string }[]>`select address from members order by address`).map((r) => r.address);
	}

	const message = (nonce: string, fields: Partial<MessageFields> = {}) =>
		buildMessage({ domain: host, uri: `http://${host}`, nonce, address: stranger.address, ...fields });

	it('GET /api/auth/nonce issues a fresh alphanumeric nonce in a short-lived sealed cookie', async () => {
		const first = await fetchNonce(base);
		const second = await fetchNonce(base);
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
		const codec = createSessionCodec({ sessionPassword: TEST_SESSION_PASSWORD, sessionPasswordsPrevious: [] });
		const inside = await codec.read(first.cookie.slice('session='.length));
		expect(inside?.nonce).toBe(first.nonce);
		expect(inside?.address).toBeUndefined();
		expect(inside!.expiresAt - Date.now()).toBeGreaterThan(800_000);
		expect(inside!.expiresAt - Date.now()).toBeLessThanOrEqual(900_000);
	});

	it('signs in: 200 with the checksummed address, a 14-day session, the member upserted', async () => {
		const { nonce, cookie } = await fetchNonce(base);
		const text = buildMessage({ domain: host, uri: `http://${host}`, nonce, address: member.address });
		const response = await postVerify(
			base,
			{ message: text, signature: await member.signMessage({ message: text }) },
			cookie
		);
		expect(response.status).toBe(200);
		expect(response.headers.get('cache-control')).toBe('no-store');
		expect(await response.json()).toEqual({ address: member.address, isAdmin: false });
		signedIn.add(member.address.toLowerCase());
		const setCookie = sessionSetCookie(response);
		expect(setCookie).toMatch(new RegExp(`Max-Age=${TTL_SECONDS}(;|$)`));
		expect(setCookie).toMatch(/HttpOnly/);
		const session = `session=${sessionCookieFrom(response)}`;
		const seen = await me(base, session);
		expect(seen.body).toEqual({ address: member.address, isAdmin: false });
		// Viewing does not extend the session: no new cookie.
		expect(seen.response.headers.getSetCookie()).toEqual([]);
		const rows = await memberRows();
		if (rows) expect(rows).toContain(member.address.toLowerCase());
	});

	it('an admin in ADMIN_ADDRESSES (any case) signs in with isAdmin true', async () => {
		const cookie = await signIn(base, admin);
		signedIn.add(admin.address.toLowerCase());
		expect((await me(base, cookie)).body).toEqual({ address: admin.address, isAdmin: true });
	});

	it('a replay of the signed message with the cookie verify returned is refused', async () => {
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

	it('a nonce requested while signed in keeps the session; a failed verify then keeps it too', async () => {
		const session = await signIn(base, member);
		const { nonce, cookie, response } = await fetchNonce(base, session);
		const maxAge = Number(/Max-Age=(\d+)/.exec(sessionSetCookie(response))?.[1]);
		expect(maxAge).toBeGreaterThan(TTL_SECONDS - 120);
		expect(maxAge).toBeLessThanOrEqual(TTL_SECONDS);
		expect((await me(base, cookie)).body.address).toBe(member.address);
		const bad = message(nonce, { chainId: 1 });
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
		const codec = createSessionCodec({ sessionPassword: TEST_SESSION_PASSWORD, sessionPasswordsPrevious: [] });
		const ending = `session=${await codec.seal({ address: member.address.toLowerCase(), expiresAt: Date.now() + 5 * 60_000 })}`;
		expect((await me(base, ending)).body.address).toBe(member.address);
		const { nonce, cookie, response } = await fetchNonce(base, ending);
		expect(sessionSetCookie(response)).toMatch(/Max-Age=900(;|$)/);
		const inside = await codec.read(cookie.slice('session='.length));
		expect(inside).toMatchObject({ nonce });
		expect(inside?.address).toBeUndefined();
	});

	it('request fields beside message and signature override nothing', async () => {
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
		expect(await response.json()).toEqual({ address: member.address, isAdmin: false });
	});

	type Attempt = { message: string; signature: Hex; cookie?: string | null };
	const failures: [string, string, (nonce: string, cookie: string) => Promise<Attempt>][] = [
		[
			'a message the grammar refuses',
			'message_malformed',
			async (nonce) => {
				const text = message(nonce).replace('Version: 1', 'Version: 2');
				return { message: text, signature: await stranger.signMessage({ message: text }) };
			}
		],
		[
			"a nonce other than the cookie's",
			'nonce_mismatch',
			async () => {
				const text = message('ZZZZzzzz0000111122');
				return { message: text, signature: await stranger.signMessage({ message: text }) };
			}
		],
		[
			'no nonce cookie at all',
			'nonce_mismatch',
			async (nonce) => {
				const text = message(nonce);
				return { message: text, signature: await stranger.signMessage({ message: text }), cookie: null };
			}
		],
		[
			'a domain not in SIWE_ALLOWED_DOMAINS',
			'domain_not_allowed',
			async (nonce) => {
				const text = message(nonce, { domain: 'portal.example', uri: 'https://portal.example' });
				return { message: text, signature: await stranger.signMessage({ message: text }) };
			}
		],
		[
			'an allowed domain whose port differs',
			'domain_not_allowed',
			async (nonce) => {
				const text = message(nonce, { domain: '127.0.0.1:1', uri: 'http://127.0.0.1:1' });
				return { message: text, signature: await stranger.signMessage({ message: text }) };
			}
		],
		[
			'a uri on another host',
			'uri_mismatch',
			async (nonce) => {
				const text = message(nonce, { uri: 'https://portal.example/login' });
				return { message: text, signature: await stranger.signMessage({ message: text }) };
			}
		],
		[
			'a uri on another port of the same host',
			'uri_mismatch',
			async (nonce) => {
				const text = message(nonce, { uri: 'http://127.0.0.1:1/' });
				return { message: text, signature: await stranger.signMessage({ message: text }) };
			}
		],
		[
			'a uri that is not http(s)',
			'uri_mismatch',
			async (nonce) => {
				const text = message(nonce, { uri: `ftp://${host}/` });
				return { message: text, signature: await stranger.signMessage({ message: text }) };
			}
		],
		[
			'chain 1 instead of 137',
			'chain_mismatch',
			async (nonce) => {
				const text = message(nonce, { chainId: 1 });
				return { message: text, signature: await stranger.signMessage({ message: text }) };
			}
		],
		[
			'no expiration time',
			'expiration_missing',
			async (nonce) => {
				const text = message(nonce, { expirationTime: null });
				return { message: text, signature: await stranger.signMessage({ message: text }) };
			}
		],
		[
			'an expiration time passed',
			'expired',
			async (nonce) => {
				const text = message(nonce, { issuedAt: minutes(-20), expirationTime: minutes(-1) });
				return { message: text, signature: await stranger.signMessage({ message: text }) };
			}
		],
		[
			'an expiration time 16 minutes ahead',
			'expiration_too_far',
			async (nonce) => {
				const text = message(nonce, { expirationTime: minutes(16) });
				return { message: text, signature: await stranger.signMessage({ message: text }) };
			}
		],
		[
			'a notBefore in the future',
			'not_yet_valid',
			async (nonce) => {
				const text = message(nonce, { notBefore: minutes(5) });
				return { message: text, signature: await stranger.signMessage({ message: text }) };
			}
		],
		[
			'a signature by another key',
			'signature_invalid',
			async (nonce) => {
				const text = message(nonce);
				return { message: text, signature: await admin.signMessage({ message: text }) };
			}
		],
		[
			'a signature over another message',
			'signature_invalid',
			async (nonce) => {
				const text = message(nonce);
				return { message: text, signature: await stranger.signMessage({ message: `${text} ` }) };
			}
		],
		[
			'a signature of the right shape but garbage',
			'signature_invalid',
			async (nonce) => ({
				message: message(nonce),
				signature: `0x${'ab'.repeat(65)}`
			})
		]
	];

	it.each(failures)('%s → 401 %s, nonce dropped, no member written', async (_label, code, make) => {
		const { nonce, cookie } = await fetchNonce(base);
		const attempt = await make(nonce, cookie);
		const before = await memberRows();
		const response = await postVerify(
			base,
			{ message: attempt.message, signature: attempt.signature },
			attempt.cookie === null ? undefined : (attempt.cookie ?? cookie)
		);
		expect(response.status).toBe(401);
		expect(response.headers.get('cache-control')).toBe('no-store');
		expect(await errorCode(response)).toBe(code);
		expect(sessionCookieFrom(response)).toBe('');
		expect(sessionSetCookie(response)).toMatch(/Max-Age=0/);
		expect(await memberRows()).toEqual(before);
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
		const { cookie } = await fetchNonce(base);
		const before = await memberRows();
		const response = await postVerify(base, body, cookie);
		expect(response.status).toBe(400);
		expect(await errorCode(response)).toBe('invalid_request');
		expect(sessionCookieFrom(response)).toBe('');
		expect(await memberRows()).toEqual(before);
	});

	it('a streamed body over 8 KiB without Content-Length → 400 invalid_request', async () => {
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

	it('a cookie flipped by one byte, sealed with another password or past its inner expiry reads as signed out', async () => {
		const session = await signIn(base, member);
		const value = session.slice('session='.length);
		const right = createSessionCodec({ sessionPassword: TEST_SESSION_PASSWORD, sessionPasswordsPrevious: [] });
		const wrong = createSessionCodec({
			sessionPassword: 'another-password-of-enough-length-0123456789',
			sessionPasswordsPrevious: []
		});
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
		const right = createSessionCodec({ sessionPassword: TEST_SESSION_PASSWORD, sessionPasswordsPrevious: [] });
		const cookie = `session=${await right.seal({ address: member.address.toLowerCase(), expiresAt: Date.now() + 4000 })}`;
		expect((await me(base, cookie)).body.address).toBe(member.address);
		await new Promise((r) => setTimeout(r, 4500));
		expect((await me(base, cookie)).body.address).toBeNull();
	});

	it('POST /api/auth/logout answers 204 and clears the cookie, with or without a session', async () => {
		for (const cookie of [undefined, await signIn(base, member)]) {
			const response = await fetch(`${base}/api/auth/logout`, { method: 'POST', headers: cookie ? { cookie } : {} });
			expect(response.status).toBe(204);
			expect(response.headers.get('cache-control')).toBe('no-store');
			expect(sessionCookieFrom(response)).toBe('');
			expect(sessionSetCookie(response)).toMatch(/Max-Age=0/);
		}
	});

	it('GET /api/auth/me without a session: address null, no-store', async () => {
		const { body, response } = await me(base);
		expect(body).toEqual({ address: null, isAdmin: false });
		expect(response.headers.get('cache-control')).toBe('no-store');
	});

	it('afterwards the members table holds exactly those who signed in, with their latest sign-in recorded', async () => {
		let rows: { address: string; created_at: Date | string; last_signed_in_at: Date | string }[];
		const query = 'select address, created_at, last_signed_in_at from members order by address';
		if (sql) {
			rows = await sql.unsafe(query);
		} else {
			await server.stop();
			const db = new PGlite(pgliteDir);
			try {
				rows = (await db.query<(typeof rows)[number]>(query)).rows;
			} finally {
				await db.close();
			}
		}
		expect(rows.map((r) => r.address)).toEqual([...signedIn].sort());
		expect(rows.map((r) => r.address)).not.toContain(stranger.address.toLowerCase());
		// The member signed in several times: the upsert moved last_signed_in_at past created_at.
		const again = rows.find((r) => r.address === member.address.toLowerCase())!;
		expect(new Date(again.last_signed_in_at).getTime()).toBeGreaterThan(new Date(again.created_at).getTime());
	});
});

describe('the Host header is never consulted', () => {
	it('a Host header that matches a spoofed message domain is still refused', async () => {
		// No ORIGIN: this server takes its URL from the Host header, so a spoofed Host would reach event.url.
		const server = await start({ ORIGIN: undefined });
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
		expect(JSON.parse(response.body)).toMatchObject({ error: { code: 'domain_not_allowed' } });
		// Control: the same request for the allowed domain, Host spoofed, succeeds on the message alone.
		const next = await fetchNonce(server.url);
		const host = new URL(server.url).host;
		const good = buildMessage({ domain: host, uri: `http://${host}`, nonce: next.nonce, address: member.address });
		const goodBody = JSON.stringify({ message: good, signature: await member.signMessage({ message: good }) });
		expect((await postWithHost(`${server.url}/api/auth/verify`, 'portal.example', goodBody, next.cookie)).status).toBe(
			200
		);
	}, 120_000);
});

describe('session password rotation', () => {
	it('a cookie sealed with SESSION_PASSWORD_PREVIOUS still reads; one sealed with an unknown password does not', async () => {
		const newPassword = 'the-new-session-password-0123456789-xyz';
		const server = await start({
			SESSION_PASSWORD: newPassword,
			SESSION_PASSWORD_PREVIOUS: `other-old-password-0123456789-0123456789, ${TEST_SESSION_PASSWORD}`
		});
		const old = createSessionCodec({ sessionPassword: TEST_SESSION_PASSWORD, sessionPasswordsPrevious: [] });
		const unknown = createSessionCodec({
			sessionPassword: 'never-configured-password-0123456789-abc',
			sessionPasswordsPrevious: []
		});
		const data = { address: member.address.toLowerCase(), expiresAt: Date.now() + 3_600_000 };
		expect((await me(server.url, `session=${await old.seal(data)}`)).body.address).toBe(member.address);
		expect((await me(server.url, `session=${await unknown.seal(data)}`)).body.address).toBeNull();
		// New cookies are sealed with the new password: the old codec cannot read them.
		const fresh = await signIn(server.url, member);
		expect(await old.read(fresh.slice('session='.length))).toBeNull();
		expect(
			await createSessionCodec({ sessionPassword: newPassword, sessionPasswordsPrevious: [] }).read(
				fresh.slice('session='.length)
			)
		).toMatchObject({ address: data.address });
	}, 120_000);
});

describe.runIf(serverUrl)('sign-in while the Postgres server is away', () => {
	it('verify answers 503 database_unavailable and sets no session; nonce still works; sign-in recovers', async () => {
		const url = await createServerDatabase();
		databases.push(url);
		await migrateServerDatabase(url);
		const { proxy, proxiedUrl } = await proxyFor(url);
		await proxy.up();
		try {
			const server = await start({ DATABASE_URL: proxiedUrl });
			await signIn(server.url, member);

			await proxy.down();
			const { nonce, cookie } = await fetchNonce(server.url);
			const host = new URL(server.url).host;
			const text = buildMessage({ domain: host, uri: `http://${host}`, nonce, address: admin.address });
			const started = Date.now();
			const response = await postVerify(
				server.url,
				{ message: text, signature: await admin.signMessage({ message: text }) },
				cookie
			);
			expect(response.status).toBe(503);
			expect(Date.now() - started).toBeLessThan(15_000);
			expect(await errorCode(response)).toBe('database_unavailable');
			expect(sessionCookieFrom(response)).toBe('');

			await proxy.up();
			let cookieBack: string | null = null;
			for (let i = 0; i < 10 && !cookieBack; i++) cookieBack = await signIn(server.url, admin).catch(() => null);
			expect((await me(server.url, cookieBack ?? undefined)).body.address).toBe(admin.address);
			const check = postgres(url, { max: 1, onnotice: () => {} });
			try {
				const rows = await check<{ address: string }[]>`select address from members order by address`;
				expect(rows.map((r) => r.address)).toEqual([admin.address, member.address].map((a) => a.toLowerCase()).sort());
			} finally {
				await check.end();
			}
		} finally {
			await proxy.down();
		}
	}, 120_000);
});
