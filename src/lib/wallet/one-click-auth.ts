import { REQUIRED_CHAIN_ID, SIGN_IN_MESSAGE_LIFETIME_MS } from '$lib/chain/chain';
import {
	SIGN_IN_STATEMENT,
	requestNonce,
	verifySignedMessage,
	type SignInEnvironment,
	type SignInOutcome
} from './sign-in';

/**
 * What One-Click Auth asks the wallet to sign in the same approval as the connection (WalletConnect's
 * `authenticate`, EIP-4361 with ReCaps): the fields of the portal's own message (docs/sign-in.md "Browser").
 */
export interface OneClickAuthRequest {
	domain: string;
	uri: string;
	chainId: number;
	nonce: string;
	statement: string;
	issuedAt: Date;
	expirationTime: Date;
}

/**
 * Connects and asks for the signature in one approval. The message exactly as the wallet signed it and
 * its signature; null when the wallet connected without signing (it does not support One-Click Auth).
 * Rejects as a connection does (declined, relay unreachable).
 */
export type OneClickAuth = (
	request: OneClickAuthRequest
) => Promise<{ message: string; signature: `0x${string}` } | null>;

/**
 * docs/sign-in.md "One-Click Auth": GET nonce, connect and sign in one approval, POST verify. Null when
 * the wallet only connected: the caller then signs in as with any connected wallet (connect-then-sign).
 */
export async function signInWithOneClickAuth(
	authenticate: OneClickAuth,
	env: SignInEnvironment
): Promise<SignInOutcome | null> {
	const nonce = await requestNonce(env);
	if (typeof nonce !== 'string') return nonce;
	const issuedAt = (env.now ?? (() => new Date()))();
	const signed = await authenticate({
		domain: env.host,
		uri: env.origin,
		chainId: REQUIRED_CHAIN_ID,
		nonce,
		statement: SIGN_IN_STATEMENT,
		issuedAt,
		expirationTime: new Date(issuedAt.getTime() + SIGN_IN_MESSAGE_LIFETIME_MS)
	});
	if (!signed) return null;
	return verifySignedMessage(env, signed.message, signed.signature);
}
