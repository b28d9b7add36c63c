import { describe, expect, it } from 'vitest';
import { privateKeyToAccount } from 'viem/accounts';
import { createEncodedRecap, formatMessage } from '@walletconnect/utils';
import { checkEoaSignature, verifySignIn } from '$lib/server/auth/siwe';
import { MAX_MESSAGE_VALIDITY_MS } from '$lib/chain/chain';
import { signInWithOneClickAuth, type OneClickAuth, type OneClickAuthRequest } from './one-click-auth';

const account = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const NOW = new Date('2026-11-25T12:00:00Z');
const env = { host: 'portal.example:8443', origin: 'https://portal.example:8443', now: () => NOW };

type Answer = { status: number; body?: unknown };
function server(answers: { nonce?: Answer; verify?: Answer } = {}) {
	const requests: { url: string; body?: unknown }[] = [];
	const fetch = ((url: string, init?: RequestInit) => {
		requests.push({ url, body: typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined });
		const a = url.endsWith('/nonce')
			? (answers.nonce ?? { status: 200, body: { nonce: 'abcdefghijklmnop1234' } })
			: (answers.verify ?? { status: 200, body: { address: account.address, isAdmin: false } });
		return Promise.resolve(new Response(a.body === undefined ? null : JSON.stringify(a.body), { status: a.status }));
	}) as typeof globalThis.fetch;
	return { fetch, requests };
}

/**
 * A phone wallet with One-Click Auth, as WalletConnect's sign client and the wallet shape the signed
 * object: the request's fields, a ReCap for the session's methods, the account as a did:pkh issuer.
 * The message is WalletConnect's own formatMessage of that object.
 */
function oneClickWallet(): { authenticate: OneClickAuth; asked: OneClickAuthRequest[] } {
	const asked: OneClickAuthRequest[] = [];
	const authenticate: OneClickAuth = async (request) => {
		asked.push(request);
		const recap = createEncodedRecap('eip155', 'request', ['personal_sign', 'wallet_switchEthereumChain']);
		const message = formatMessage(
			{
				type: 'eip4361',
				domain: request.domain,
				aud: request.uri,
				version: '1',
				nonce: request.nonce,
				iat: request.issuedAt.toISOString(),
				exp: request.expirationTime.toISOString(),
				statement: request.statement,
				resources: [recap]
			},
			`did:pkh:eip155:${request.chainId}:${account.address}`
		);
		return { message, signature: await account.signMessage({ message }) };
	};
	return { authenticate, asked };
}

describe('signInWithOneClickAuth', () => {
	it('asks the wallet for the portal’s message (this host and origin, chain 137, the nonce, ten minutes) and posts what it signed', async () => {
		const s = server();
		const wallet = oneClickWallet();
		const outcome = await signInWithOneClickAuth(wallet.authenticate, { ...env, fetch: s.fetch });
		expect(outcome).toEqual({ ok: true, value: { address: account.address, isAdmin: false } });
		expect(wallet.asked).toEqual([
			{
				domain: 'portal.example:8443',
				uri: 'https://portal.example:8443',
				chainId: 137,
				nonce: 'abcdefghijklmnop1234',
				statement: 'Sign in to the member portal.',
				issuedAt: NOW,
				expirationTime: new Date(NOW.getTime() + 10 * 60_000)
			}
		]);
		const verify = s.requests.find((r) => r.url === '/api/auth/verify')?.body as { message: string; signature: string };
		expect(verify.message).toContain('urn:recap:');
		expect(verify.message).toContain('Nonce: abcdefghijklmnop1234');
	});

	it('what the wallet signs passes every rule of the server (ReCap statement and resource included)', async () => {
		const s = server();
		const wallet = oneClickWallet();
		await signInWithOneClickAuth(wallet.authenticate, { ...env, fetch: s.fetch });
		const { message, signature } = s.requests.find((r) => r.url === '/api/auth/verify')?.body as {
			message: string;
			signature: `0x${string}`;
		};
		const result = await verifySignIn(
			{ message, signature, expectedNonce: 'abcdefghijklmnop1234' },
			{
				allowedDomains: ['portal.example:8443'],
				chainId: 137,
				maxValidityMs: MAX_MESSAGE_VALIDITY_MS,
				requireExpiration: true,
				checkSignature: checkEoaSignature
			},
			NOW.getTime() + 1_000
		);
		expect(result).toMatchObject({ ok: true, value: { address: account.address } });
	});

	it('a wallet without One-Click Auth only connects: null, and nothing is posted to verify', async () => {
		const s = server();
		const outcome = await signInWithOneClickAuth(() => Promise.resolve(null), { ...env, fetch: s.fetch });
		expect(outcome).toBeNull();
		expect(s.requests.map((r) => r.url)).toEqual(['/api/auth/nonce']);
	});

	it('a 429 for the nonce: the traffic message, and the wallet is never asked', async () => {
		const s = server({ nonce: { status: 429 } });
		const wallet = oneClickWallet();
		const outcome = await signInWithOneClickAuth(wallet.authenticate, { ...env, fetch: s.fetch });
		expect(outcome).toMatchObject({ ok: false, code: 'rate_limited', action: null });
		expect(wallet.asked).toHaveLength(0);
	});

	it("the server's refusal carries its code", async () => {
		const s = server({ verify: { status: 401, body: { error: { code: 'expired', message: 'x' } } } });
		const outcome = await signInWithOneClickAuth(oneClickWallet().authenticate, { ...env, fetch: s.fetch });
		expect(outcome).toMatchObject({ ok: false, code: 'expired', action: 'sign_again' });
	});
});
