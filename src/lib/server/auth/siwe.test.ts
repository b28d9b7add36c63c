import { describe, expect, it } from 'vitest';
import { SIGN_IN_FAILURE_MESSAGES } from '$lib/auth/sign-in-failures';
import { checkEoaSignature, precheckSignIn, verifySignIn, type SignInFailureCode, type SignInPolicy } from './siwe';
import { buildMessage, testAccount, type MessageFields } from '../../../../tests/helpers/siwe';

// Each of the specification's "Verification rules" (docs/sign-in.md), at its edges, with a fixed clock and key.
const account = testAccount('member');
const NOW = Date.parse('2026-01-01T12:00:00.000Z');
const at = (ms: number) => new Date(NOW + ms);
const NONCE = 'abcDEF0123456789xyz';

/** A refusal as verifySignIn answers it: the rule's code and the 401's message. */
const refused = (code: SignInFailureCode) => ({ ok: false, code, message: SIGN_IN_FAILURE_MESSAGES[code] });
/** A domain refusal: it names the allowed addresses and the one the message was made for. */
const refusedDomain = (domain: string) => ({
	ok: false,
	code: 'domain_not_allowed',
	message: `This portal accepts sign-ins made at portal.example or localhost:5173 or secure.example:443, not at ${domain}: open it there and sign in again.`
});

const policy: SignInPolicy = {
	allowedDomains: ['portal.example', 'localhost:5173', 'secure.example:443'],
	chainId: 137,
	maxValidityMs: 15 * 60_000,
	requireExpiration: true,
	checkSignature: checkEoaSignature
};

async function verify(
	fields: Partial<MessageFields>,
	options: { nonce?: string | null; message?: (m: string) => string } = {}
) {
	let message = buildMessage({
		domain: 'portal.example',
		uri: 'https://portal.example/setup',
		nonce: NONCE,
		address: account.address,
		issuedAt: at(0),
		expirationTime: at(10 * 60_000),
		...fields
	});
	if (options.message) message = options.message(message);
	const signature = await account.signMessage({ message });
	return verifySignIn(
		{ message, signature, expectedNonce: options.nonce === undefined ? NONCE : options.nonce },
		policy,
		NOW
	);
}

describe('verifySignIn rules', () => {
	it('accepts the message the browser builds', async () => {
		expect(await verify({})).toMatchObject({ ok: true, value: { address: account.address } });
	});

	it('nonce: must equal the cookie nonce; none in the cookie fails', async () => {
		expect(await verify({}, { nonce: 'somethingElse12345' })).toEqual(refused('nonce_mismatch'));
		expect(await verify({}, { nonce: null })).toEqual(refused('nonce_mismatch'));
		expect(await verify({}, { nonce: '' })).toEqual(refused('nonce_mismatch'));
	});

	it('domain: compared case-insensitively with SIWE_ALLOWED_DOMAINS, port included, user info never matches', async () => {
		expect(await verify({ domain: 'Portal.Example', uri: 'https://portal.example/' })).toMatchObject({ ok: true });
		expect(await verify({ domain: 'localhost:5173', uri: 'http://localhost:5173' })).toMatchObject({ ok: true });
		expect(await verify({ domain: 'localhost', uri: 'http://localhost' })).toEqual(refusedDomain('localhost'));
		expect(await verify({ domain: 'localhost:5174', uri: 'http://localhost:5174' })).toEqual(
			refusedDomain('localhost:5174')
		);
		expect(await verify({}, { message: (m) => m.replace('portal.example wants', 'me@portal.example wants') })).toEqual(
			refusedDomain('me@portal.example')
		);
		expect(await verify({ domain: 'portal.example.evil', uri: 'https://portal.example.evil' })).toEqual(
			refusedDomain('portal.example.evil')
		);
	});

	it('uri: http(s) on the same host and port as domain, no user info, same scheme as a domain that names one', async () => {
		expect(await verify({ uri: 'http://portal.example' })).toMatchObject({ ok: true });
		expect(await verify({ domain: 'secure.example:443', uri: 'https://secure.example/' })).toMatchObject({ ok: true });
		expect(await verify({ uri: 'https://portal.example:8443/' })).toEqual(refused('uri_mismatch'));
		expect(await verify({ uri: 'https://other.example/' })).toEqual(refused('uri_mismatch'));
		expect(await verify({ uri: 'https://user@portal.example/' })).toEqual(refused('uri_mismatch'));
		expect(await verify({ uri: 'wss://portal.example/' })).toEqual(refused('uri_mismatch'));
		expect(await verify({ uri: 'did:pkh:portal.example' })).toEqual(refused('uri_mismatch'));
		const withScheme = (m: string) => m.replace('portal.example wants', 'https://portal.example wants');
		expect(await verify({}, { message: withScheme })).toMatchObject({ ok: true });
		expect(await verify({ uri: 'http://portal.example/' }, { message: withScheme })).toEqual(refused('uri_mismatch'));
	});

	it('chainId: 137 only', async () => {
		expect(await verify({ chainId: 1 })).toEqual(refused('chain_mismatch'));
		expect(await verify({ chainId: 80002 })).toEqual(refused('chain_mismatch'));
	});

	it('expirationTime: present, not passed, at most 15 minutes ahead', async () => {
		expect(await verify({ expirationTime: null })).toEqual(refused('expiration_missing'));
		expect(await verify({ expirationTime: at(0) })).toEqual(refused('expired'));
		expect(await verify({ issuedAt: at(-60_000), expirationTime: at(-1) })).toEqual(refused('expired'));
		expect(await verify({ expirationTime: at(15 * 60_000) })).toMatchObject({ ok: true });
		expect(await verify({ expirationTime: at(15 * 60_000 + 1000) })).toEqual(refused('expiration_too_far'));
	});

	it('notBefore: not in the future', async () => {
		expect(await verify({ notBefore: at(0) })).toMatchObject({ ok: true });
		expect(await verify({ notBefore: at(1000) })).toEqual(refused('not_yet_valid'));
	});

	it('the message is the only source: a signature over another text fails, and the first broken rule is reported', async () => {
		const message = buildMessage({
			domain: 'portal.example',
			uri: 'https://portal.example',
			nonce: NONCE,
			address: account.address,
			issuedAt: at(0),
			expirationTime: at(60_000)
		});
		const signature = await account.signMessage({ message: message.replace('Sign in', 'Sign In') });
		expect(await verifySignIn({ message, signature, expectedNonce: NONCE }, policy, NOW)).toEqual(
			refused('signature_invalid')
		);
		expect(await verify({ chainId: 1, expirationTime: null }, { nonce: 'other0123456789' })).toEqual(
			refused('nonce_mismatch')
		);
		expect(await verify({ chainId: 1, expirationTime: null })).toEqual(refused('chain_mismatch'));
	});

	it('message_malformed: text the reference grammar refuses', async () => {
		const garbage = await verifySignIn({ message: 'hello', signature: '0x00', expectedNonce: NONCE }, policy, NOW);
		expect(garbage).toEqual(refused('message_malformed'));
		expect(await verify({}, { message: (m) => m.replace(account.address, account.address.toLowerCase()) })).toEqual(
			refused('message_malformed')
		);
	});
});

describe('precheckSignIn: what is refused before the parser runs', () => {
	const honest = buildMessage({
		domain: 'portal.example',
		uri: 'https://portal.example',
		nonce: NONCE,
		address: account.address,
		issuedAt: at(0),
		expirationTime: at(60_000)
	});
	it('lets the message the browser builds through', () => {
		expect(precheckSignIn(honest, NONCE)).toBeNull();
	});

	it('no nonce in the cookie is nonce_mismatch, whatever the body', () => {
		for (const nonce of [null, undefined, '']) {
			expect(precheckSignIn(honest, nonce)).toBe('nonce_mismatch');
			expect(precheckSignIn('x'.repeat(8000), nonce)).toBe('nonce_mismatch');
		}
	});

	it("no Nonce line is message_malformed; none with the cookie's nonce is nonce_mismatch", () => {
		expect(precheckSignIn(honest.replace(`Nonce: ${NONCE}`, `Nonce-ish: ${NONCE}`), NONCE)).toBe('message_malformed');
		expect(precheckSignIn(honest, 'another0123456789')).toBe('nonce_mismatch');
		expect(precheckSignIn(honest.replace(`Nonce: ${NONCE}`, `Nonce: ${NONCE}x`), NONCE)).toBe('nonce_mismatch');
	});
});
