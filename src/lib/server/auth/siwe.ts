import { SiweMessage, generateNonce } from 'siwe';
import type { Address, Hex } from 'viem';
import { MAX_MESSAGE_VALIDITY_MS, REQUIRED_CHAIN_ID } from '$lib/chain/chain';
import { ok, type Failed, type Result } from '$lib/platform/result';
import { SIGN_IN_FAILURE_MESSAGES, domainRefusal, type SignInFailureCode } from '$lib/auth/sign-in-failures';
import { polygonRpc } from '../chain/polygon';
import { RPC_TIMEOUT_MS } from '../platform/endpoints';
import { recoverSigner } from './recover';
// Bounds the reference parser's work on every message it parses, before any parse.
import './siwe-parse-budget';

export type { SignInFailureCode };

/** A message that the reference ABNF parser accepted. */
export interface SignInMessage {
	scheme: string | null;
	domain: string;
	/** EIP-55 checksummed, as the grammar requires. */
	address: Address;
	statement: string | null;
	uri: string;
	version: string;
	chainId: number;
	nonce: string;
	issuedAt: string;
	expirationTime: string | null;
	notBefore: string | null;
	requestId: string | null;
	resources: string[] | null;
}

/** The signed-in address (checksummed) and its message, or the first rule that refused it (the 401's code and message). */
export type SignInResult = Result<{ address: Address; message: SignInMessage }, Failed<SignInFailureCode>>;

/** Checks that `signature` over the EIP-191 `message` is by `address`. Never throws. */
export type SignatureCheck = (args: { address: Address; message: string; signature: Hex }) => Promise<boolean>;

/** The rule parameters; the service's own are `signInPolicy(config)`. */
export interface SignInPolicy {
	/** Lowercase `host` or `host:port`. */
	allowedDomains: readonly string[];
	chainId: number;
	/** How far ahead expirationTime may be, in milliseconds. */
	maxValidityMs: number;
	/** The service requires an expirationTime; the reference vectors do not all carry one. */
	requireExpiration: boolean;
	checkSignature: SignatureCheck;
}

/** A nonce from a CSPRNG: 96 bits as 17 alphanumeric characters (siwe's generateNonce). */
export function createNonce(): string {
	return generateNonce();
}

/**
 * Parses an EIP-4361 message with the reference parser (`siwe`); null when the grammar refuses it
 * (its variable-length rules answered by linear scanners: siwe-parse-budget.ts).
 */
export function parseSignInMessage(text: string): SignInMessage | null {
	let parsed: SiweMessage;
	try {
		parsed = new SiweMessage(text);
	} catch {
		return null;
	}
	const orNull = <T>(value: T | undefined): T | null => (value === undefined ? null : value);
	return {
		scheme: orNull(parsed.scheme),
		domain: parsed.domain,
		address: parsed.address as Address,
		statement: orNull(parsed.statement),
		uri: parsed.uri,
		version: parsed.version,
		chainId: parsed.chainId,
		nonce: parsed.nonce,
		issuedAt: parsed.issuedAt ?? '',
		expirationTime: orNull(parsed.expirationTime),
		notBefore: orNull(parsed.notBefore),
		requestId: orNull(parsed.requestId),
		resources: orNull(parsed.resources)
	};
}

/**
 * Applies the specification's "Verification rules" (docs/sign-in.md) to a signed message, in the order of its
 * table, and returns the first rule that fails. The message is the only source of address,
 * domain, uri and chain; the caller passes the nonce from the session cookie.
 */
export async function verifySignIn(
	input: { message: string; signature: Hex; expectedNonce: string | null | undefined },
	policy: SignInPolicy,
	now: number = Date.now()
): Promise<SignInResult> {
	const refused = precheckSignIn(input.message, input.expectedNonce);
	if (refused) return fail(refused);
	const message = parseSignInMessage(input.message);
	if (!message) return fail('message_malformed');
	if (!input.expectedNonce || message.nonce !== input.expectedNonce) return fail('nonce_mismatch');
	if (!isAllowedDomain(message.domain, policy.allowedDomains))
		return fail('domain_not_allowed', domainRefusal(message.domain, policy.allowedDomains));
	if (!uriMatchesDomain(message)) return fail('uri_mismatch');
	if (message.chainId !== policy.chainId) return fail('chain_mismatch');
	const timeProblem = checkValidityWindow(message, policy, now);
	if (timeProblem) return fail(timeProblem);
	const signed = await policy.checkSignature({
		address: message.address,
		message: input.message,
		signature: input.signature
	});
	if (!signed) return fail('signature_invalid');
	// The grammar accepted only an EIP-55 checksummed address: checksumming it again would cost a Keccak hash.
	return ok({ address: message.address, message });
}

const fail = (code: SignInFailureCode, message = SIGN_IN_FAILURE_MESSAGES[code]): SignInResult => ({
	ok: false,
	code,
	message
});

/**
 * The refusals that cost microseconds, checked before the parser runs (docs/sign-in.md "Before
 * parsing"): no nonce in the cookie; no `Nonce:` line; no `Nonce:` line with the cookie's nonce.
 * Null: parse it. No size bound here: the parser's own work is bounded (siwe-parse-budget.ts).
 */
export function precheckSignIn(text: string, expectedNonce: string | null | undefined): SignInFailureCode | null {
	if (!expectedNonce) return 'nonce_mismatch';
	const nonces = text.split('\n').filter((line) => line.startsWith('Nonce: '));
	if (nonces.length === 0) return 'message_malformed';
	return nonces.includes(`Nonce: ${expectedNonce}`) ? null : 'nonce_mismatch';
}

/** domain is one of SIWE_ALLOWED_DOMAINS, compared case-insensitively; user info never matches. */
export function isAllowedDomain(domain: string, allowed: readonly string[]): boolean {
	return allowed.includes(domain.toLowerCase());
}

/** uri is http(s), without user info, on the same host (and port) as domain and the domain's scheme if it names one. */
export function uriMatchesDomain(message: Pick<SignInMessage, 'uri' | 'domain' | 'scheme'>): boolean {
	let uri: URL;
	let domain: URL;
	try {
		uri = new URL(message.uri);
		if (uri.protocol !== 'http:' && uri.protocol !== 'https:') return false;
		if (uri.username || uri.password) return false;
		if (message.scheme && `${message.scheme.toLowerCase()}:` !== uri.protocol) return false;
		// Parsing the domain under the uri's scheme normalises case and the default port alike.
		domain = new URL(`${uri.protocol}//${message.domain}`);
	} catch {
		return false;
	}
	if (domain.username || domain.password || domain.pathname !== '/') return false;
	return uri.host === domain.host;
}

/** expirationTime present, not passed, at most maxValidityMs ahead; notBefore not in the future. */
export function checkValidityWindow(
	message: Pick<SignInMessage, 'expirationTime' | 'notBefore'>,
	policy: Pick<SignInPolicy, 'maxValidityMs' | 'requireExpiration'>,
	now: number
): SignInFailureCode | null {
	if (message.expirationTime === null) {
		if (policy.requireExpiration) return 'expiration_missing';
	} else {
		const expires = Date.parse(message.expirationTime);
		if (!Number.isFinite(expires)) return 'message_malformed';
		if (expires <= now) return 'expired';
		if (expires - now > policy.maxValidityMs) return 'expiration_too_far';
	}
	if (message.notBefore !== null) {
		const notBefore = Date.parse(message.notBefore);
		if (!Number.isFinite(notBefore)) return 'message_malformed';
		if (notBefore > now) return 'not_yet_valid';
	}
	return null;
}

/**
 * ECDSA recovery only: ordinary accounts (EOAs). Recovered by libsecp256k1 (`recoverSigner`,
 * recover.ts), with exactly the acceptance of viem's `recoverMessageAddress`.
 */
export const checkEoaSignature: SignatureCheck = async ({ address, message, signature }) => {
	const recovered = await recoverSigner({ message, signature });
	// What isAddressEqual compares, without checksumming both sides again (bench/history/2026-11-25-issue-34-hot-path.md "Where a
	// sign-in's CPU goes"): recovery returns an address, the parser checked its own.
	return recovered !== null && recovered === address.toLowerCase();
};

/**
 * EOAs by local recovery first (no network); otherwise ERC-1271 / ERC-6492 through a public client
 * on chain 137, after confirming once that the RPC endpoint really serves chain 137.
 */
export function contractWalletSignatureCheck(rpcUrl: string, timeoutMs = RPC_TIMEOUT_MS): SignatureCheck {
	const { client, confirmChain } = polygonRpc(rpcUrl, timeoutMs);
	return async (args) => {
		if (await checkEoaSignature(args)) return true;
		if (!(await confirmChain())) return false;
		try {
			return await client.verifyMessage(args);
		} catch {
			return false;
		}
	};
}

const policies = new WeakMap<object, SignInPolicy>();

/** The service's rules: SIWE_ALLOWED_DOMAINS, chain 137, expiry required and at most 15 minutes ahead. */
export function signInPolicy(config: {
	siweAllowedDomains: readonly string[];
	polygonRpcUrl: string | null;
}): SignInPolicy {
	let policy = policies.get(config);
	if (!policy) {
		policy = {
			allowedDomains: config.siweAllowedDomains.map((d) => d.toLowerCase()),
			chainId: REQUIRED_CHAIN_ID,
			maxValidityMs: MAX_MESSAGE_VALIDITY_MS,
			requireExpiration: true,
			checkSignature: config.polygonRpcUrl ? contractWalletSignatureCheck(config.polygonRpcUrl) : checkEoaSignature
		};
		policies.set(config, policy);
	}
	return policy;
}
