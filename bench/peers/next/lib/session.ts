// The iron-session cookie of the Next.js peer: the nonce between /api/nonce and /api/verify, then the address.
import type { SessionOptions } from 'iron-session';

export interface SessionData {
	nonce?: string;
	address?: `0x${string}`;
	chainId?: number;
}

export const sessionOptions: SessionOptions = {
	password: process.env.SESSION_PASSWORD as string,
	cookieName: 'session',
	// ttl: iron-session's default, 14 days, as the portal's session.
	cookieOptions: { secure: process.env.NODE_ENV === 'production' }
};

/** The one chain the portal accepts (Polygon), and the domain its messages must name. */
export const CHAIN_ID = 137;
export const siweDomain = () => process.env.SIWE_DOMAIN as string;
