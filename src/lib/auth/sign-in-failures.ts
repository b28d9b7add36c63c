import { MAX_MESSAGE_VALIDITY_MS, REQUIRED_CHAIN_ID } from '../chain/chain';
import { signin_prompt_chain_mismatch } from '$lib/paraglide/messages/signin_prompt_chain_mismatch.js';
import { signin_prompt_domain_not_allowed } from '$lib/paraglide/messages/signin_prompt_domain_not_allowed.js';
import { signin_prompt_expiration_missing } from '$lib/paraglide/messages/signin_prompt_expiration_missing.js';
import { signin_prompt_expiration_too_far } from '$lib/paraglide/messages/signin_prompt_expiration_too_far.js';
import { signin_prompt_expired } from '$lib/paraglide/messages/signin_prompt_expired.js';
import { signin_prompt_invalid_request } from '$lib/paraglide/messages/signin_prompt_invalid_request.js';
import { signin_prompt_message_malformed } from '$lib/paraglide/messages/signin_prompt_message_malformed.js';
import { signin_prompt_nonce_mismatch } from '$lib/paraglide/messages/signin_prompt_nonce_mismatch.js';
import { signin_prompt_not_yet_valid } from '$lib/paraglide/messages/signin_prompt_not_yet_valid.js';
import { signin_prompt_signature_invalid } from '$lib/paraglide/messages/signin_prompt_signature_invalid.js';
import { signin_prompt_uri_mismatch } from '$lib/paraglide/messages/signin_prompt_uri_mismatch.js';

/**
 * Why POST /api/auth/verify refused a signed message (docs/http.md, docs/sign-in.md), with what the
 * server answers and what the sign-in screen then says: both sides read this one module, and a new
 * code fails type-checking until each side has its words for it.
 */
export const SIGN_IN_FAILURE_CODES = [
	'message_malformed',
	'nonce_mismatch',
	'domain_not_allowed',
	'uri_mismatch',
	'chain_mismatch',
	'expiration_missing',
	'expired',
	'expiration_too_far',
	'not_yet_valid',
	'signature_invalid'
] as const;

/** The 401 codes of POST /api/auth/verify, one per verification rule. */
export type SignInFailureCode = (typeof SIGN_IN_FAILURE_CODES)[number];

/** Every error code of POST /api/auth/verify that the sign-in screen explains (429 and 503 aside). */
export type VerifyErrorCode = SignInFailureCode | 'invalid_request';

const minutes = MAX_MESSAGE_VALIDITY_MS / 60_000;

/** The `message` of each 401 answer. */
export const SIGN_IN_FAILURE_MESSAGES: Record<SignInFailureCode, string> = {
	message_malformed: 'The message is not a valid Sign-In with Ethereum message.',
	nonce_mismatch: 'The nonce does not match the one issued to this browser. Request a new nonce and sign again.',
	domain_not_allowed: 'The message was made for a domain this service does not accept.',
	uri_mismatch: 'The message URI must be http(s) on the same host as its domain.',
	chain_mismatch: `Sign in on Polygon (chain id ${REQUIRED_CHAIN_ID}).`,
	expiration_missing: 'The message must carry an expiration time.',
	expired: 'The message has expired. Sign a new one.',
	expiration_too_far: `The message expiration time may be at most ${minutes} minutes ahead.`,
	not_yet_valid: 'The message is not valid yet (Not Before is in the future).',
	signature_invalid: 'The signature is not valid for the address in the message.'
};

/**
 * The 401 message of `domain_not_allowed`, naming the address that is allowed: the usual cause is an
 * operator's portal opened at another address (an IP, a `www.` name) than SIWE_ALLOWED_DOMAINS names.
 */
export function domainRefusal(domain: string, allowed: readonly string[]): string {
	if (allowed.length === 0)
		return `This portal accepts no sign-ins yet (SIWE_ALLOWED_DOMAINS is empty), not at ${domain}.`;
	return `This portal accepts sign-ins made at ${allowed.join(' or ')}, not at ${domain}: open it there and sign in again.`;
}

/**
 * What the sign-in screen says after each refusal (a message, in the page's language), and whether to
 * offer a retry or a new signature.
 */
export const SIGN_IN_FAILURE_PROMPTS: Record<
	VerifyErrorCode,
	{ message: () => string; action: 'retry' | 'sign_again' }
> = {
	expired: { message: signin_prompt_expired, action: 'sign_again' },
	expiration_too_far: { message: signin_prompt_expiration_too_far, action: 'sign_again' },
	expiration_missing: { message: signin_prompt_expiration_missing, action: 'sign_again' },
	not_yet_valid: { message: signin_prompt_not_yet_valid, action: 'sign_again' },
	nonce_mismatch: { message: signin_prompt_nonce_mismatch, action: 'sign_again' },
	chain_mismatch: {
		message: () => signin_prompt_chain_mismatch({ required: REQUIRED_CHAIN_ID }),
		action: 'sign_again'
	},
	domain_not_allowed: { message: signin_prompt_domain_not_allowed, action: 'retry' },
	uri_mismatch: { message: signin_prompt_uri_mismatch, action: 'retry' },
	signature_invalid: { message: signin_prompt_signature_invalid, action: 'sign_again' },
	message_malformed: { message: signin_prompt_message_malformed, action: 'sign_again' },
	invalid_request: { message: signin_prompt_invalid_request, action: 'retry' }
};

/**
 * Why a sign-in stopped in the browser, before or around the server's answer: the sign-in screen
 * decides by these codes (and the server's), never by the words.
 */
export const BROWSER_SIGN_IN_CODES = [
	'rate_limited',
	'wrong_network',
	'server_unreachable',
	'server_error',
	'answer_unreadable',
	'signature_declined',
	'signing_failed',
	'connection_declined',
	'connection_failed',
	'relay_unreachable',
	'no_account',
	'interrupted'
] as const;

/** Every code a sign-in failure on the sign-in screen carries: the browser's own or the server's. */
export type SignInScreenCode = (typeof BROWSER_SIGN_IN_CODES)[number] | VerifyErrorCode;

/** True for a code this module explains (an answer's code is any string). */
export const isVerifyErrorCode = (code: string): code is VerifyErrorCode =>
	Object.hasOwn(SIGN_IN_FAILURE_PROMPTS, code);
