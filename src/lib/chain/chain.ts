/** Values both the server and the browser need. */

/** Polygon PoS: the only chain a sign-in message may name. */
export const REQUIRED_CHAIN_ID = 137;

/** How far ahead a sign-in message's expirationTime may be: the server's limit (the specification's 15 minutes). */
export const MAX_MESSAGE_VALIDITY_MS = 15 * 60_000;

/** How far ahead the browser sets a sign-in message's expirationTime, well inside MAX_MESSAGE_VALIDITY_MS. */
export const SIGN_IN_MESSAGE_LIFETIME_MS = 10 * 60_000;

/** The community token (PUBLIC_TOKEN_*), as the server validates it and the wallet adds it. */
export interface CommunityToken {
	address: `0x${string}`;
	symbol: string;
	decimals: number;
	image: string | null;
}

/**
 * The community token from the PUBLIC_TOKEN_* variables, or null when they are not all set.
 * The server validates them at start-up; this only refuses shapes wallet_watchAsset would reject.
 */
export function communityTokenFrom(env: Record<string, string | undefined>): CommunityToken | null {
	const address = env.PUBLIC_TOKEN_ADDRESS?.trim() ?? '';
	const symbol = env.PUBLIC_TOKEN_SYMBOL?.trim() ?? '';
	const decimals = env.PUBLIC_TOKEN_DECIMALS?.trim() ?? '';
	const image = env.PUBLIC_TOKEN_IMAGE?.trim() ?? '';
	if (!/^0x[0-9a-fA-F]{40}$/.test(address) || symbol === '' || !/^\d{1,2}$/.test(decimals)) return null;
	return { address: address as `0x${string}`, symbol, decimals: Number(decimals), image: image || null };
}

/** A WalletConnect Cloud (Reown) project id, as cloud.reown.com shows it. */
export const WALLETCONNECT_PROJECT_ID = /^[0-9a-f]{32}$/;

/**
 * The WalletConnect project id (PUBLIC_WALLETCONNECT_PROJECT_ID), or null when WalletConnect is not offered.
 * The server refuses to start with a malformed one; the browser reads it from `$env/dynamic/public`.
 */
export function walletConnectProjectIdFrom(env: Record<string, string | undefined>): string | null {
	const id = env.PUBLIC_WALLETCONNECT_PROJECT_ID?.trim() ?? '';
	return WALLETCONNECT_PROJECT_ID.test(id) ? id : null;
}

export { shortAddress } from '../platform/display';
