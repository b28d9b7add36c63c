import { createSiweMessage } from 'viem/siwe';
import { REQUIRED_CHAIN_ID, SIGN_IN_MESSAGE_LIFETIME_MS } from '$lib/chain/chain';
import type { Failed, Result } from '$lib/platform/result';
import { SIGN_IN_FAILURE_PROMPTS, isVerifyErrorCode, type SignInScreenCode } from '$lib/auth/sign-in-failures';
import { signin_nonce_failed } from '$lib/paraglide/messages/signin_nonce_failed.js';
import { signin_nonce_unreadable } from '$lib/paraglide/messages/signin_nonce_unreadable.js';
import { signin_rate_limited } from '$lib/paraglide/messages/signin_rate_limited.js';
import { signin_server_unreachable } from '$lib/paraglide/messages/signin_server_unreachable.js';
import { signin_signature_declined } from '$lib/paraglide/messages/signin_signature_declined.js';
import { signin_signing_failed } from '$lib/paraglide/messages/signin_signing_failed.js';
import { signin_still_wrong_network } from '$lib/paraglide/messages/signin_still_wrong_network.js';
import { signin_switch_declined } from '$lib/paraglide/messages/signin_switch_declined.js';
import { signin_switch_declined_on } from '$lib/paraglide/messages/signin_switch_declined_on.js';
import { signin_switch_failed } from '$lib/paraglide/messages/signin_switch_failed.js';
import { signin_switch_failed_on } from '$lib/paraglide/messages/signin_switch_failed_on.js';
import { signin_unknown_chain } from '$lib/paraglide/messages/signin_unknown_chain.js';
import { signin_verify_failed } from '$lib/paraglide/messages/signin_verify_failed.js';
import { signin_verify_unreadable } from '$lib/paraglide/messages/signin_verify_unreadable.js';
import type { Me } from './session.svelte';

/**
 * Why a sign-in stopped (`code`: the server's when it refused the signed message, else the browser's;
 * the screen decides by it, never by the words) and what the screen offers: a retry, a new signature,
 * or nothing for a 429 (retrying spends the limit).
 */
export interface SignInFailure extends Failed<SignInScreenCode> {
	action: 'retry' | 'sign_again' | null;
}

export type SignInOutcome = Result<Me, SignInFailure>;

/** The statement of every sign-in message this portal asks a wallet to sign. */
export const SIGN_IN_STATEMENT = 'Sign in to the member portal.';

/** What a 429 says, in the page's language. */
export const rateLimitedMessage = (): string => signin_rate_limited();

/** The wallet side of the routine; the browser passes the wagmi-backed wallet, tests a fake. */
export interface SigningWallet {
	address: `0x${string}`;
	/** The wallet's raw chain id (not limited to configured chains). */
	chainId(): number | undefined;
	switchToRequiredChain(): Promise<void>;
	signMessage(message: string): Promise<`0x${string}`>;
}

export interface SignInEnvironment {
	fetch: typeof fetch;
	/** location.host and location.origin of the page. */
	host: string;
	origin: string;
	now?: () => Date;
}

/** True when the wallet reports that the person declined (EIP-1193 code 4001), however deeply wrapped. */
export function isUserRejection(error: unknown): boolean {
	for (let e: unknown = error, depth = 0; e && typeof e === 'object' && depth < 8; depth++) {
		if ((e as { code?: unknown }).code === 4001) return true;
		if ((e as { name?: unknown }).name === 'UserRejectedRequestError') return true;
		e = (e as { cause?: unknown }).cause;
	}
	return false;
}

export function failed(
	code: SignInScreenCode,
	message: string,
	action: SignInFailure['action'] = 'retry'
): SignInFailure {
	return { ok: false, code, message, action };
}

const rateLimited = () => failed('rate_limited', rateLimitedMessage(), null);

async function errorOf(response: Response): Promise<{ code: string | null; message: string | null }> {
	try {
		const { error } = (await response.json()) as { error?: { code?: unknown; message?: unknown } };
		return {
			code: typeof error?.code === 'string' ? error.code : null,
			message: typeof error?.message === 'string' ? error.message : null
		};
	} catch {
		return { code: null, message: null };
	}
}

/**
 * docs/sign-in.md "Browser", steps 2–6, for an already connected wallet:
 * switch to 137, GET nonce, build the message with viem's createSiweMessage, sign, POST verify.
 */
export async function signInWithEthereum(wallet: SigningWallet, env: SignInEnvironment): Promise<SignInOutcome> {
	const now = env.now ?? (() => new Date());

	if (wallet.chainId() !== REQUIRED_CHAIN_ID) {
		try {
			await wallet.switchToRequiredChain();
		} catch (error) {
			const chain = wallet.chainId();
			const required = REQUIRED_CHAIN_ID;
			return failed(
				'wrong_network',
				isUserRejection(error)
					? chain
						? signin_switch_declined_on({ chain, required })
						: signin_switch_declined({ required })
					: chain
						? signin_switch_failed_on({ chain, required })
						: signin_switch_failed({ required })
			);
		}
	}
	if (wallet.chainId() !== REQUIRED_CHAIN_ID) {
		return failed(
			'wrong_network',
			signin_still_wrong_network({
				chain: wallet.chainId() ?? signin_unknown_chain(),
				required: REQUIRED_CHAIN_ID
			})
		);
	}

	const nonce = await requestNonce(env);
	if (typeof nonce !== 'string') return nonce;

	const issuedAt = now();
	const message = createSiweMessage({
		domain: env.host,
		uri: env.origin,
		address: wallet.address,
		chainId: REQUIRED_CHAIN_ID,
		nonce,
		version: '1',
		issuedAt,
		expirationTime: new Date(issuedAt.getTime() + SIGN_IN_MESSAGE_LIFETIME_MS),
		statement: SIGN_IN_STATEMENT
	});

	let signature: `0x${string}`;
	try {
		signature = await wallet.signMessage(message);
	} catch (error) {
		return isUserRejection(error)
			? failed('signature_declined', signin_signature_declined(), 'sign_again')
			: failed('signing_failed', signin_signing_failed(), 'sign_again');
	}

	return verifySignedMessage(env, message, signature);
}

/** Step 3: GET /api/auth/nonce; the nonce, or what the screen shows. */
export async function requestNonce(env: SignInEnvironment): Promise<string | SignInOutcome> {
	let nonceResponse: Response;
	try {
		nonceResponse = await env.fetch('/api/auth/nonce', { cache: 'no-store', credentials: 'same-origin' });
	} catch {
		return failed('server_unreachable', signin_server_unreachable());
	}
	if (nonceResponse.status === 429) return rateLimited();
	if (!nonceResponse.ok) return failed('server_error', signin_nonce_failed({ status: nonceResponse.status }));
	try {
		const body = (await nonceResponse.json()) as { nonce?: unknown };
		if (typeof body.nonce !== 'string') throw new Error('no nonce');
		return body.nonce;
	} catch {
		return failed('answer_unreadable', signin_nonce_unreadable());
	}
}

/** Step 6: POST /api/auth/verify with the message exactly as the wallet signed it. */
export async function verifySignedMessage(
	env: SignInEnvironment,
	message: string,
	signature: `0x${string}`
): Promise<SignInOutcome> {
	let verify: Response;
	try {
		verify = await env.fetch('/api/auth/verify', {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ message, signature }),
			cache: 'no-store',
			credentials: 'same-origin'
		});
	} catch {
		return failed('server_unreachable', signin_server_unreachable(), 'sign_again');
	}
	if (verify.status === 429) return rateLimited();
	if (!verify.ok) {
		const { code, message: said } = await errorOf(verify);
		if (!code || !isVerifyErrorCode(code))
			return failed('server_error', signin_verify_failed({ status: verify.status }), 'sign_again');
		const prompt = SIGN_IN_FAILURE_PROMPTS[code];
		// The server names the address that is allowed: the one thing to do next (in English, as the API speaks).
		const words = code === 'domain_not_allowed' && said && said.length <= 300 ? said : prompt.message();
		return failed(code, words, prompt.action);
	}
	try {
		const body = (await verify.json()) as { address?: unknown; isAdmin?: unknown };
		if (typeof body.address !== 'string') throw new Error('no address');
		return { ok: true, value: { address: body.address, isAdmin: body.isAdmin === true } };
	} catch {
		return failed('answer_unreadable', signin_verify_unreadable(), 'sign_again');
	}
}
