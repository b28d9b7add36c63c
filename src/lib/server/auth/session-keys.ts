import { hkdfSync, scrypt } from 'node:crypto';
import { promisify } from 'node:util';
import { singleton } from '$lib/platform/singleton';

const scryptAsync = promisify(scrypt) as (
	password: string,
	salt: string,
	keylen: number,
	options: { N: number; r: number; p: number; maxmem: number }
) => Promise<Buffer>;

/**
 * scrypt at 32 MiB (N = 2^15, r = 8, p = 1): slow once per password and process, and as slow for every
 * guess an attacker tests against a cookie (docs/decisions/0014-session-keys-from-scrypt.md; the time:
 * bench/README.md "Figures behind the code").
 */
export const SESSION_KDF = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const;

// Fixed, so that every process and restart derives the same keys from the same password.
const SALT = 'member-portal/session-cookie/v1';

/** What iron seals with: raw keys (no PBKDF2 of its own) under an id that names them. */
export interface SessionKeys {
	/** 12 hex characters from the scrypt output: testing a guess against it costs a full scrypt. */
	id: string;
	encryption: Uint8Array;
	integrity: Uint8Array;
}

const derivedKeys = singleton('session keys', () => new Map<string, Promise<SessionKeys>>());

/** The keys of one SESSION_PASSWORD (or previous one); derived once per process. */
export function deriveSessionKeys(password: string): Promise<SessionKeys> {
	const derived = derivedKeys.get();
	let keys = derived.get(password);
	if (!keys) {
		keys = scryptAsync(password, SALT, 32, SESSION_KDF).then((master) => {
			const expand = (info: string, length: number) => new Uint8Array(hkdfSync('sha256', master, '', info, length));
			return {
				id: Buffer.from(expand('password id', 6)).toString('hex'),
				encryption: expand('encryption', 32),
				integrity: expand('integrity', 32)
			};
		});
		derived.set(password, keys);
	}
	return keys;
}
