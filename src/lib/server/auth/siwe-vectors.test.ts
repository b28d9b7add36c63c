import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SIGN_IN_FAILURE_MESSAGES } from '$lib/auth/sign-in-failures';
import type { Hex } from 'viem';
import { checkEoaSignature, parseSignInMessage, verifySignIn, type SignInFailureCode, type SignInPolicy } from './siwe';
import { parseJson } from '../../../../tests/helpers/json';
import { formatMessage, type RawMessageFields } from '../../../../tests/helpers/siwe';

/** A refusal as verifySignIn answers it: the rule's code and the 401's message. */
const refused = (code: SignInFailureCode) => ({ ok: false, code, message: SIGN_IN_FAILURE_MESSAGES[code] });

// The reference vectors of the SIWE library (chain 1, domain siwe.xyz), kept as data in the repository; see their README.
const VECTORS = fileURLToPath(new URL('../../../../tests/fixtures/siwe/', import.meta.url));
const load = <T>(name: string) => parseJson<Record<string, T>>(readFileSync(path.join(VECTORS, name), 'utf8'));

type VerificationVector = RawMessageFields & {
	signature: Hex;
	time?: string;
	domainBinding?: string;
	matchNonce?: string;
};

const parsingPositive = load<{ message: string; fields: RawMessageFields }>('parsing_positive.json');
const parsingNegative = load<string>('parsing_negative.json');
const negativeObjects = load<RawMessageFields>('parsing_negative_objects.json');
const verificationPositive = load<VerificationVector>('verification_positive.json');
const verificationNegative = load<VerificationVector>('verification_negative.json');

const OPTIONAL = ['scheme', 'statement', 'expirationTime', 'notBefore', 'requestId', 'resources'] as const;

/** The vectors' own rules: their domain (or domainBinding), chain 1, no 15-minute cap, expiry optional. */
function vectorPolicy(v: VerificationVector): SignInPolicy {
	return {
		allowedDomains: [(v.domainBinding ?? v.domain ?? '').toLowerCase()],
		chainId: 1,
		maxValidityMs: Number.POSITIVE_INFINITY,
		requireExpiration: false,
		checkSignature: checkEoaSignature
	};
}

const verifyVector = (v: VerificationVector) =>
	verifySignIn(
		{ message: formatMessage(v), signature: v.signature, expectedNonce: v.matchNonce ?? v.nonce },
		vectorPolicy(v),
		v.time ? Date.parse(v.time) : Date.now()
	);

describe('SIWE reference vectors: parsing', () => {
	it('has every file with its documented number of cases', () => {
		expect(Object.keys(parsingPositive)).toHaveLength(20);
		expect(Object.keys(parsingNegative)).toHaveLength(29);
		expect(Object.keys(negativeObjects)).toHaveLength(18);
		expect(Object.keys(verificationPositive)).toHaveLength(4);
		expect(Object.keys(verificationNegative)).toHaveLength(10);
	});

	it.each(Object.entries(parsingPositive))('parses "%s" to exactly its fields', (_name, { message, fields }) => {
		const parsed = parseSignInMessage(message);
		expect(parsed).not.toBeNull();
		const expected: Record<string, unknown> = { ...fields };
		for (const key of OPTIONAL) if (!(key in expected)) expected[key] = null;
		for (const [key, value] of Object.entries(expected)) {
			expect(parsed?.[key as keyof typeof parsed], key).toEqual(value);
		}
	});

	it.each(Object.entries(parsingNegative))('refuses the message "%s"', (_name, message) => {
		expect(parseSignInMessage(message)).toBeNull();
	});

	it.each(Object.entries(negativeObjects))('refuses a message built from the object "%s"', (_name, fields) => {
		expect(parseSignInMessage(formatMessage(fields))).toBeNull();
	});

	it('the verbatim formatter reproduces every positive message (so the object cases test the parser, not the formatter)', () => {
		for (const { message, fields } of Object.values(parsingPositive)) {
			expect(formatMessage(fields)).toBe(message);
		}
	});
});

describe('SIWE reference vectors: verification', () => {
	it.each(Object.entries(verificationPositive))(
		'"%s": the signature is by the address and the message verifies',
		async (_name, v) => {
			const message = formatMessage(v);
			expect(await checkEoaSignature({ address: v.address as Hex, message, signature: v.signature })).toBe(true);
			const result = await verifyVector(v);
			// Signed for www.tally.xyz with a uri on tally.xyz: valid per EIP-4361, refused by our same-host uri rule.
			if (v.domain === 'www.tally.xyz') expect(result).toEqual(refused('uri_mismatch'));
			else expect(result).toMatchObject({ ok: true, value: { address: v.address } });
		}
	);

	// Why each negative vector must fail, in this service's codes.
	const expectedFailure: Record<string, SignInFailureCode> = {
		'expired message': 'expired',
		'domain binding': 'domain_not_allowed',
		'custom time': 'expired',
		'custom nonce': 'nonce_mismatch',
		'malformed signature': 'signature_invalid',
		'wrong signature': 'signature_invalid',
		'not yet valid': 'not_yet_valid',
		'invalid issuedAt': 'message_malformed',
		'invalid notBefore': 'message_malformed',
		'invalid expirationTime': 'message_malformed'
	};

	it('names an expected failure for every negative vector', () => {
		expect(Object.keys(verificationNegative).sort()).toEqual(Object.keys(expectedFailure).sort());
	});

	it.each(Object.entries(verificationNegative))('"%s" does not verify', async (name, v) => {
		const code = expectedFailure[name]!;
		// A domain refusal says which address is allowed instead (domainRefusal); the code is the rule.
		if (code === 'domain_not_allowed') expect(await verifyVector(v)).toMatchObject({ ok: false, code });
		else expect(await verifyVector(v)).toEqual(refused(code));
	});

	it.each(['malformed signature', 'wrong signature'])('"%s" fails at the signature itself', async (name) => {
		const v = verificationNegative[name]!;
		expect(
			await checkEoaSignature({ address: v.address as Hex, message: formatMessage(v), signature: v.signature })
		).toBe(false);
	});
});
