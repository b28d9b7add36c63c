import { describe, expect, it } from 'vitest';
import { privateKeyToAccount } from 'viem/accounts';
import { parseSiweMessage } from 'viem/siwe';
import { rateLimitedMessage, signInWithEthereum, type SigningWallet } from './sign-in';

const account = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const env = {
	host: 'portal.example:8443',
	origin: 'https://portal.example:8443',
	now: () => new Date('2026-11-21T05:00:00Z')
};

function wallet(overrides: Partial<SigningWallet> & { chain?: number } = {}) {
	let chain = overrides.chain ?? 137;
	const signed: string[] = [];
	const w: SigningWallet = {
		address: account.address,
		chainId: () => chain,
		switchToRequiredChain: () => {
			chain = 137;
			return Promise.resolve();
		},
		signMessage: async (message) => {
			signed.push(message);
			return account.signMessage({ message });
		},
		...overrides
	};
	return { w, signed };
}

type Answer = { status: number; body?: unknown };
function server(answers: { nonce?: Answer; verify?: Answer }) {
	const requests: { url: string; init?: RequestInit }[] = [];
	const fetch = ((url: string, init?: RequestInit) => {
		requests.push({ url, init });
		const a = url.endsWith('/nonce')
			? (answers.nonce ?? { status: 200, body: { nonce: 'abcdefghijklmnop1234' } })
			: (answers.verify ?? { status: 200, body: { address: account.address, isAdmin: false } });
		return Promise.resolve(new Response(a.body === undefined ? null : JSON.stringify(a.body), { status: a.status }));
	}) as typeof globalThis.fetch;
	return { fetch, requests };
}

describe('signInWithEthereum', () => {
	it('builds the message of docs/sign-in.md: this host and origin, chain 137, the nonce, ten minutes to expiry', async () => {
		const { w, signed } = wallet();
		const s = server({});
		const outcome = await signInWithEthereum(w, { ...env, fetch: s.fetch });
		expect(outcome).toEqual({ ok: true, value: { address: account.address, isAdmin: false } });
		const fields = parseSiweMessage(signed[0]!);
		expect(fields).toMatchObject({
			domain: 'portal.example:8443',
			uri: 'https://portal.example:8443',
			chainId: 137,
			nonce: 'abcdefghijklmnop1234',
			address: account.address,
			version: '1'
		});
		expect(fields.expirationTime!.getTime() - fields.issuedAt!.getTime()).toBe(10 * 60_000);
		const body = JSON.parse(s.requests[1]!.init!.body as string) as { message: string; signature: string };
		expect(body.message).toBe(signed[0]);
		expect(body.signature).toMatch(/^0x[0-9a-f]{130}$/);
	});

	it('switches to Polygon first when the wallet is on another chain', async () => {
		const { w } = wallet({ chain: 1 });
		expect((await signInWithEthereum(w, { ...env, ...server({}) })).ok).toBe(true);
	});

	it('reports the wrong network, with a retry, when the switch is declined', async () => {
		const { w, signed } = wallet({
			chain: 1,
			switchToRequiredChain: () => Promise.reject(Object.assign(new Error('rejected'), { code: 4001 }))
		});
		const outcome = await signInWithEthereum(w, { ...env, ...server({}) });
		expect(outcome).toEqual({
			ok: false,
			code: 'wrong_network',
			action: 'retry',
			message: expect.stringContaining('Wrong network') as string
		});
		expect(signed).toEqual([]);
	});

	it.each(['nonce', 'verify'] as const)('a 429 from %s is rate_limited, with no retry action', async (step) => {
		const { w } = wallet();
		const outcome = await signInWithEthereum(w, { ...env, ...server({ [step]: { status: 429 } }) });
		expect(outcome).toEqual({ ok: false, code: 'rate_limited', action: null, message: rateLimitedMessage() });
	});

	it('a refused signature (4001, however wrapped) offers to sign again and sends nothing', async () => {
		const { w } = wallet({
			signMessage: () => Promise.reject(Object.assign(new Error('outer'), { cause: { code: 4001 } }))
		});
		const s = server({});
		const outcome = await signInWithEthereum(w, { ...env, fetch: s.fetch });
		expect(outcome).toEqual({
			ok: false,
			code: 'signature_declined',
			action: 'sign_again',
			message: expect.stringContaining('refused') as string
		});
		expect(s.requests.map((r) => r.url)).toEqual(['/api/auth/nonce']);
	});

	it.each([
		['expired', /expired/],
		['nonce_mismatch', /no longer current/],
		['chain_mismatch', /Wrong network/],
		['signature_invalid', /signature does not match/]
	])('a 401 %s from verify says what went wrong and carries the code', async (code, text) => {
		const { w } = wallet();
		const outcome = await signInWithEthereum(w, {
			...env,
			...server({ verify: { status: 401, body: { error: { code, message: 'x' } } } })
		});
		expect(outcome.ok).toBe(false);
		if (!outcome.ok) {
			expect(outcome.message).toMatch(text);
			expect(outcome.code).toBe(code);
		} else throw new Error('expected a failure with a prompt');
	});

	it('a server error on the nonce offers a retry and names the status', async () => {
		const { w } = wallet();
		const outcome = await signInWithEthereum(w, { ...env, ...server({ nonce: { status: 503 } }) });
		expect(outcome).toEqual({
			ok: false,
			code: 'server_error',
			action: 'retry',
			message: expect.stringContaining('503') as string
		});
	});
});
