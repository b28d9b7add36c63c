import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The links of the e-mail channel, signed with a key derived from SESSION_PASSWORD (nothing stored):
 * `verify` names the address row as it was added (its e-mail and created_at: adding again, or
 * verifying, makes the old link useless, so it is single use), `unsubscribe` the address and e-mail.
 */
export type TokenPurpose = 'verify' | 'unsubscribe';

export interface EmailTokenClaims {
	address: string;
	email: string;
	/** The row's created_at in ms (verify only; 0 for unsubscribe). */
	createdAtMs: number;
}

const keyOf = (secret: string) =>
	createHmac('sha256', secret).update('member-portal notifications e-mail links').digest();

function mac(secret: string, purpose: TokenPurpose, c: EmailTokenClaims): Buffer {
	return createHmac('sha256', keyOf(secret))
		.update([purpose, c.address, c.email.toLowerCase(), String(c.createdAtMs)].join('\n'))
		.digest()
		.subarray(0, 18);
}

/** `<address>.<created ms>.<mac>`: what the link carries; the e-mail itself never is in a URL. */
export function signToken(secret: string, purpose: TokenPurpose, c: EmailTokenClaims): string {
	return `${c.address}.${c.createdAtMs.toString(36)}.${mac(secret, purpose, c).toString('base64url')}`;
}

/** The token's address and time, read without trusting them: `verifyToken` checks them against the row. */
export function readToken(token: unknown): { address: string; createdAtMs: number; mac: string } | null {
	if (typeof token !== 'string' || token.length > 200) return null;
	const match = /^(0x[0-9a-f]{40})\.([0-9a-z]{1,12})\.([A-Za-z0-9_-]{24})$/.exec(token);
	if (!match) return null;
	return { address: match[1]!, createdAtMs: parseInt(match[2]!, 36), mac: match[3]! };
}

/** Whether `token` was signed for `claims` (constant time); secrets of earlier passwords count too (rotation). */
export function tokenMatches(secrets: readonly string[], purpose: TokenPurpose, token: string, c: EmailTokenClaims) {
	const given = Buffer.from(token.split('.')[2] ?? '', 'base64url');
	return secrets.some((secret) => {
		const expected = mac(secret, purpose, c);
		return given.length === expected.length && timingSafeEqual(given, expected);
	});
}
