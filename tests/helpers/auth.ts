// What the sign-in HTTP tests share: a built server on either engine, and typed reads of its answers.
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import postgres from 'postgres';
import type { Hex } from 'viem';
import { expect } from 'vitest';
import { createSessionCodec } from '../../src/lib/server/auth/session';
import { requireServerUrl, type Engine } from './db';
import { readJson } from './json';
import { createServerDatabase } from './postgres.js';
import { startServer, TEST_SESSION_PASSWORD, type RunningServer } from './server';
import { buildMessage, testAccount, type MessageFields } from './siwe';

export const TTL_SECONDS = 1_209_600;
export const member = testAccount('member');
export const admin = testAccount('admin');
// Signs every failing attempt, so it must never appear in the members table.
export const stranger = testAccount('other');
const minutes = (n: number) => new Date(Date.now() + n * 60_000);

/** The codec the test servers seal cookies with (TEST_SESSION_PASSWORD), or one with another password. */
export function sessionCodec(password = TEST_SESSION_PASSWORD) {
	return createSessionCodec({ sessionPassword: password, sessionPasswordsPrevious: [] });
}

/** Starts the built server with `env` and fails at once when it exits instead of listening. */
export async function startListening(env: Record<string, string | undefined> = {}): Promise<RunningServer> {
	const server = await startServer({ env });
	if (server.process.exitCode !== null) throw new Error(`server exited:\n${server.output()}`);
	return server;
}

export interface MemberRow {
	address: string;
	created_at: Date | string;
	last_signed_in_at: Date | string;
}

export interface AuthServer {
	server: RunningServer;
	base: string;
	host: string;
	/** The members' addresses now, or null on PGlite (its files can be read only once the server stops). */
	memberAddresses(): Promise<string[] | null>;
	/** The members table; on PGlite this stops the server first. */
	membersTable(): Promise<MemberRow[]>;
	stop(): Promise<void>;
}

/**
 * The built server for one test file, on its own database: a file-backed PGlite or a fresh migrated
 * database on the TEST_DATABASE_URL server. The admin address is given in odd case and spacing.
 */
export async function startAuthServer(engine: Engine): Promise<AuthServer> {
	const env: Record<string, string | undefined> = {
		ADMIN_ADDRESSES: ` ${admin.address.toUpperCase().replace('0X', '0x')} `
	};
	let sql: postgres.Sql | null = null;
	let dropDatabase = async () => {};
	let pgliteDir: string | null = null;
	if (engine === 'postgres') {
		const database = await createServerDatabase(requireServerUrl());
		dropDatabase = database.drop;
		env.DATABASE_URL = database.url;
		sql = postgres(database.url, { max: 1, onnotice: () => {} });
	} else {
		pgliteDir = mkdtempSync(path.join(tmpdir(), 'portal-auth-'));
		env.PGLITE_DATA_DIR = pgliteDir;
	}
	const server = await startListening(env);
	const query = 'select address, created_at, last_signed_in_at from members order by address';
	return {
		server,
		base: server.url,
		host: new URL(server.url).host,
		async memberAddresses() {
			if (!sql) return null;
			return (await sql<{ address: string }[]>`select address from members order by address`).map((r) => r.address);
		},
		async membersTable() {
			if (sql) return sql.unsafe<MemberRow[]>(query);
			await server.stop();
			const db = new PGlite(pgliteDir!);
			try {
				return (await db.query<MemberRow>(query)).rows;
			} finally {
				await db.close();
			}
		},
		async stop() {
			await server.stop();
			await sql?.end();
			await dropDatabase();
			if (pgliteDir) rmSync(pgliteDir, { recursive: true, force: true });
		}
	};
}

/** The `error.code` of a JSON error answer. */
export async function errorCode(response: Response): Promise<string | undefined> {
	return (await readJson<{ error?: { code?: string } }>(response)).error?.code;
}

/** GET /api/auth/me with `cookie`; asserts the 200. */
export async function me(baseUrl: string, cookie?: string) {
	const response = await fetch(`${baseUrl}/api/auth/me`, { headers: cookie ? { cookie } : {} });
	expect(response.status).toBe(200);
	return { body: await readJson<{ address: string | null; isAdmin: boolean }>(response), response };
}

/** The Set-Cookie header of the session cookie, for its attributes. */
export function sessionSetCookie(response: Response): string {
	return response.headers.getSetCookie().find((h) => h.startsWith('session=')) ?? '';
}

/** A raw HTTP POST with a chosen Host header (fetch does not let a caller set one). */
export function postWithHost(
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
				res.on('data', (chunk: Buffer) => (text += chunk.toString()));
				res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
			}
		);
		req.on('error', reject);
		req.end(body);
	});
}

export type Attempt = { message: string; signature: Hex; cookie?: string | null };
export type Failure = [label: string, code: string, make: (nonce: string, host: string) => Promise<Attempt>];

/** The stranger's message for the server at `host`, with `fields` changed. */
const message = (host: string, nonce: string, fields: Partial<MessageFields> = {}) =>
	buildMessage({ domain: host, uri: `http://${host}`, nonce, address: stranger.address, ...fields });
const signed = async (text: string): Promise<Attempt> => ({
	message: text,
	signature: await stranger.signMessage({ message: text })
});

/** A failing sign-in by the stranger for each verification rule, with the code it is refused with. */
export const SIGN_IN_FAILURES: Failure[] = [
	[
		'a message the grammar refuses',
		'message_malformed',
		(nonce, host) => signed(message(host, nonce).replace('Version: 1', 'Version: 2'))
	],
	["a nonce other than the cookie's", 'nonce_mismatch', (_nonce, host) => signed(message(host, 'ZZZZzzzz0000111122'))],
	[
		'no nonce cookie at all',
		'nonce_mismatch',
		async (nonce, host) => ({ ...(await signed(message(host, nonce))), cookie: null })
	],
	[
		'a domain not in SIWE_ALLOWED_DOMAINS',
		'domain_not_allowed',
		(nonce, host) => signed(message(host, nonce, { domain: 'portal.example', uri: 'https://portal.example' }))
	],
	[
		'an allowed domain whose port differs',
		'domain_not_allowed',
		(nonce, host) => signed(message(host, nonce, { domain: '127.0.0.1:1', uri: 'http://127.0.0.1:1' }))
	],
	[
		'a uri on another host',
		'uri_mismatch',
		(nonce, host) => signed(message(host, nonce, { uri: 'https://portal.example/login' }))
	],
	[
		'a uri on another port of the same host',
		'uri_mismatch',
		(nonce, host) => signed(message(host, nonce, { uri: 'http://127.0.0.1:1/' }))
	],
	[
		'a uri that is not http(s)',
		'uri_mismatch',
		(nonce, host) => signed(message(host, nonce, { uri: `ftp://${host}/` }))
	],
	['chain 1 instead of 137', 'chain_mismatch', (nonce, host) => signed(message(host, nonce, { chainId: 1 }))],
	['no expiration time', 'expiration_missing', (nonce, host) => signed(message(host, nonce, { expirationTime: null }))],
	[
		'an expiration time passed',
		'expired',
		(nonce, host) => signed(message(host, nonce, { issuedAt: minutes(-20), expirationTime: minutes(-1) }))
	],
	[
		'an expiration time 16 minutes ahead',
		'expiration_too_far',
		(nonce, host) => signed(message(host, nonce, { expirationTime: minutes(16) }))
	],
	[
		'a notBefore in the future',
		'not_yet_valid',
		(nonce, host) => signed(message(host, nonce, { notBefore: minutes(5) }))
	],
	[
		'a signature by another key',
		'signature_invalid',
		async (nonce, host) => {
			const text = message(host, nonce);
			return { message: text, signature: await admin.signMessage({ message: text }) };
		}
	],
	[
		'a signature over another message',
		'signature_invalid',
		async (nonce, host) => {
			const text = message(host, nonce);
			return { message: text, signature: await stranger.signMessage({ message: `${text} ` }) };
		}
	],
	[
		'a signature of the right shape but garbage',
		'signature_invalid',
		(nonce, host) => Promise.resolve({ message: message(host, nonce), signature: `0x${'ab'.repeat(65)}` })
	],
	// The stranger's own signature, changed where viem's recovery refuses it (the portal keeps that acceptance).
	[
		'a signature with v = 29',
		'signature_invalid',
		(nonce, host) => reshaped(message(host, nonce), ({ r, s }) => [r, s, 29])
	],
	[
		'a signature with v = 2',
		'signature_invalid',
		(nonce, host) => reshaped(message(host, nonce), ({ r, s }) => [r, s, 2])
	],
	[
		'a signature with s = 0',
		'signature_invalid',
		(nonce, host) => reshaped(message(host, nonce), ({ r, v }) => [r, 0n, v])
	],
	[
		'a signature with r = n',
		'signature_invalid',
		(nonce, host) => reshaped(message(host, nonce), ({ s, v }) => [SECP256K1_N, s, v])
	],
	[
		'a signature with s = n + s',
		'signature_invalid',
		(nonce, host) =>
			reshaped(message(host, nonce), ({ r, s, v }) => [
				r,
				s + SECP256K1_N < 2n ** 256n ? s + SECP256K1_N : SECP256K1_N,
				v
			])
	],
	[
		'a 64-byte signature (r and s without v)',
		'signature_invalid',
		async (nonce, host) => {
			const attempt = await signed(message(host, nonce));
			return { ...attempt, signature: attempt.signature.slice(0, 130) as Hex };
		}
	]
];

/** The order of secp256k1's group: r and s must lie in 1 … n − 1. */
export const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
type Rsv = { r: bigint; s: bigint; v: number };
/** A 65-byte signature from its r, s and v. */
export function rsvSignature(r: bigint, s: bigint, v: number): Hex {
	const word = (n: bigint) => n.toString(16).padStart(64, '0');
	return `0x${word(r)}${word(s)}${v.toString(16).padStart(2, '0')}`;
}
/** r, s and v of a 65-byte signature. */
export function splitSignature(signature: Hex): Rsv {
	return {
		r: BigInt(`0x${signature.slice(2, 66)}`),
		s: BigInt(`0x${signature.slice(66, 130)}`),
		v: parseInt(signature.slice(130), 16)
	};
}
/** The stranger's signature of `text`, with r, s and v replaced by `change`. */
async function reshaped(text: string, change: (parts: Rsv) => [bigint, bigint, number]): Promise<Attempt> {
	const { signature } = await signed(text);
	return { message: text, signature: rsvSignature(...change(splitSignature(signature))) };
}
