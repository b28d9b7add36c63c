import Iron from '@hapi/iron';
import { serialize } from 'cookie';
import { LRUCache } from 'lru-cache';
import type { Cookies } from '@sveltejs/kit';
import { MAX_MESSAGE_VALIDITY_MS } from '$lib/chain/chain';
import type { Config } from '../platform/config';
import { deriveSessionKeys, type SessionKeys } from './session-keys';

/** What the sealed cookie holds; no server table backs it. */
export interface SessionData {
	/** Lowercase wallet address, set only after a successful verification. */
	address?: string;
	/** The one-time nonce, present only between GET /api/auth/nonce and the next verify. */
	nonce?: string;
	/** Milliseconds since the epoch; checked on every read, whatever the cookie's Max-Age said. */
	expiresAt: number;
}

export const SESSION_COOKIE = 'session';

export interface SessionCodec {
	seal(data: SessionData): Promise<string>;
	/** The session in `cookie`, or null when it is missing, unreadable, tampered, foreign or expired. */
	read(cookie: string | undefined, now?: number): Promise<SessionData | null>;
}

// iron's format (Fe26.2), as iron-webcrypto wrote it before (decision 0036): cookies sealed then still read.
const IRON_OPTIONS = { ...Iron.defaults, ttl: 0 };

/** @hapi/iron takes a Buffer as a raw key (no PBKDF2 of its own); a string would be a password to stretch. */
type IronKeys = { id: string; encryption: Buffer; integrity: Buffer };
const ironKeys = ({ id, encryption, integrity }: SessionKeys): IronKeys => ({
	id,
	encryption: Buffer.from(encryption),
	integrity: Buffer.from(integrity)
});

/**
 * Seals sessions with the keys of SESSION_PASSWORD and reads cookies sealed with them or with those
 * of any SESSION_PASSWORD_PREVIOUS entry. The keys come from scrypt once per process
 * (session-keys.ts), so that nothing in a cookie lets a guessed password be checked cheaply.
 * Decoded cookies are kept in a bounded cache keyed by the exact cookie string; the expiry is still
 * checked on every read.
 */
export async function createSessionCodec(
	config: Pick<Config, 'sessionPassword' | 'sessionPasswordsPrevious'>,
	cacheSize = 10_000
): Promise<SessionCodec> {
	const [current, ...previous] = await Promise.all(
		[config.sessionPassword, ...config.sessionPasswordsPrevious].map(deriveSessionKeys)
	);
	// Looked up by the password id a cookie names: no prototype, so `__proto__` or `constructor` finds nothing.
	const keys = Object.create(null) as Record<string, IronKeys>;
	for (const key of [current!, ...previous]) keys[key.id] ??= ironKeys(key);
	const sealWith = ironKeys(current!);
	const cache = new LRUCache<string, SessionData>({ max: cacheSize });

	return {
		seal: (data) => Iron.seal(data, sealWith, IRON_OPTIONS),
		async read(cookie, now = Date.now()) {
			if (!cookie) return null;
			let data = cache.get(cookie);
			if (!data) {
				try {
					const value: unknown = await Iron.unseal(cookie, keys, IRON_OPTIONS);
					data = parseSessionData(value);
				} catch {
					return null;
				}
				if (!data) return null;
				cache.set(cookie, data);
			}
			if (data.expiresAt <= now) {
				cache.delete(cookie);
				return null;
			}
			return data;
		}
	};
}

function parseSessionData(value: unknown): SessionData | undefined {
	if (!value || typeof value !== 'object') return undefined;
	const { address, nonce, expiresAt } = value as Record<string, unknown>;
	if (typeof expiresAt !== 'number' || !Number.isFinite(expiresAt)) return undefined;
	if (address !== undefined && (typeof address !== 'string' || !/^0x[0-9a-f]{40}$/.test(address))) return undefined;
	if (nonce !== undefined && typeof nonce !== 'string') return undefined;
	return { address, nonce, expiresAt };
}

/**
 * HttpOnly, SameSite=lax, Path=/, and Secure in production (served over https). With `framed` (the
 * SAFE_APP_ORIGINS opt-in, decision 0022) the cookie must reach the portal inside Safe{Wallet}'s frame,
 * a cross-site context: SameSite=None, which browsers accept only with Secure, and Partitioned (CHIPS),
 * so that it lives in a jar of its own per top-level site and other sites' pages never send it.
 */
export function sessionCookieOptions(url: Pick<URL, 'protocol'>, maxAgeSeconds: number, framed = false) {
	const maxAge = Math.max(0, Math.floor(maxAgeSeconds));
	if (framed) return { path: '/', httpOnly: true, sameSite: 'none' as const, secure: true, partitioned: true, maxAge };
	return { path: '/', httpOnly: true, sameSite: 'lax' as const, secure: url.protocol === 'https:', maxAge };
}

/** Why the browser signed the member out (`account`), read once by the page it goes back to. */
export const SIGNED_OUT_COOKIE = 'signed-out';
export const signedOutCookieOptions = (url: URL) =>
	({ path: '/', httpOnly: true, sameSite: 'lax', secure: url.protocol === 'https:', maxAge: 60 }) as const;

/** A nonce-only cookie lives as long as a signed message may. */
export const NONCE_TTL_SECONDS = MAX_MESSAGE_VALIDITY_MS / 1000;

/** The Max-Age of `data`'s cookie, or null when there is nothing (left) to keep and the cookie is cleared. */
function maxAgeOf(data: SessionData | null, now: number): number | null {
	const maxAgeSeconds = data ? Math.floor((data.expiresAt - now) / 1000) : 0;
	return !data || maxAgeSeconds <= 0 || (!data.address && !data.nonce) ? null : maxAgeSeconds;
}

/**
 * The Set-Cookie header writeSessionCookie has SvelteKit send, for the portal's Node server's own
 * answers (decision 0053): the same options through the `cookie` package's serialize, which SvelteKit's
 * `cookies.set` and `cookies.delete` (an empty value, Max-Age 0) use. `protocol`: the request URL's.
 */
export async function sessionSetCookie(
	codec: SessionCodec,
	data: SessionData | null,
	now: number,
	{ protocol, framed }: { protocol: string; framed: boolean }
): Promise<string> {
	const maxAge = maxAgeOf(data, now);
	if (data === null || maxAge === null)
		return serialize(SESSION_COOKIE, '', sessionCookieOptions({ protocol }, 0, framed));
	return serialize(SESSION_COOKIE, await codec.seal(data), sessionCookieOptions({ protocol }, maxAge, framed));
}

/**
 * Writes `data` as the session cookie with Max-Age = the time left until its inner expiresAt, or
 * clears the cookie when there is nothing (left) to keep.
 */
export async function writeSessionCookie(
	cookies: Pick<Cookies, 'set' | 'delete'>,
	url: URL,
	codec: SessionCodec,
	data: SessionData | null,
	now: number = Date.now(),
	framed = false
): Promise<void> {
	const maxAgeSeconds = maxAgeOf(data, now);
	if (data === null || maxAgeSeconds === null) {
		cookies.delete(SESSION_COOKIE, sessionCookieOptions(url, 0, framed));
		return;
	}
	cookies.set(SESSION_COOKIE, await codec.seal(data), sessionCookieOptions(url, maxAgeSeconds, framed));
}
