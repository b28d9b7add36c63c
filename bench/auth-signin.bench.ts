// Sign-ins per second in one process against bare viem signature recovery and the portal's own
// recovery through libsecp256k1 (src/lib/server/auth/recover.ts).
// Usage: npx vitest bench --run bench/auth-signin.bench.ts
import { recoverMessageAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { bench, describe } from 'vitest';
import { recoverSigner } from '../src/lib/server/auth/recover';
import { createSessionCodec } from '../src/lib/server/auth/session';
import { checkEoaSignature, parseSignInMessage, verifySignIn, type SignInPolicy } from '../src/lib/server/auth/siwe';

// A well-known development key; it holds nothing.
const account = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const now = Date.now();
const nonce = 'benchNonce0123456789';
const message = createSiweMessage({
	domain: 'portal.example',
	uri: 'https://portal.example',
	address: account.address,
	chainId: 137,
	nonce,
	version: '1',
	statement: 'Sign in to the member portal.',
	issuedAt: new Date(now),
	expirationTime: new Date(now + 10 * 60_000)
});
const signature = await account.signMessage({ message });
const policy: SignInPolicy = {
	allowedDomains: ['portal.example'],
	chainId: 137,
	maxValidityMs: 15 * 60_000,
	requireExpiration: true,
	checkSignature: checkEoaSignature
};
// Long runs with warm-up: the machine is shared, and the first calls pay for JIT compilation.
const options = { time: Number(process.env.BENCH_SECONDS ?? 8) * 1000, warmupTime: 2000, warmupIterations: 50 };
const codec = await createSessionCodec({
	sessionPassword: 'bench-session-password-0123456789-abcdef',
	sessionPasswordsPrevious: []
});

describe('sign-in', () => {
	// The baseline runs first and last: on a shared machine the mean of both cancels most drift.
	bench(
		'bare viem recoverMessageAddress (first)',
		async () => {
			await recoverMessageAddress({ message, signature });
		},
		options
	);

	bench(
		'libsecp256k1 recoverSigner (the native addon where it loads, decision 0056; EIP-191 hash and address included)',
		async () => {
			if ((await recoverSigner({ message, signature })) !== account.address.toLowerCase()) throw new Error('refused');
		},
		options
	);

	bench(
		'verifySignIn (siwe parse + every rule + recovery)',
		async () => {
			const result = await verifySignIn({ message, signature, expectedNonce: nonce }, policy, now);
			if (!result.ok) throw new Error(result.code);
		},
		options
	);

	bench(
		'verifySignIn + seal the session cookie',
		async () => {
			const result = await verifySignIn({ message, signature, expectedNonce: nonce }, policy, now);
			if (!result.ok) throw new Error(result.code);
			await codec.seal({ address: result.value.address.toLowerCase(), expiresAt: now + 1_209_600_000 });
		},
		options
	);

	bench(
		'bare viem recoverMessageAddress (last)',
		async () => {
			await recoverMessageAddress({ message, signature });
		},
		options
	);
});

// Each part of verifySignIn alone (bench/README.md, "Where a sign-in's CPU goes"), on the same message.
const trusting: SignInPolicy = { ...policy, checkSignature: () => Promise.resolve(true) };
describe('sign-in parts', () => {
	bench(
		'siwe parse (parseSignInMessage)',
		() => {
			if (!parseSignInMessage(message)) throw new Error('refused');
		},
		options
	);
	bench(
		'every rule but the signature (verifySignIn with a signature check that accepts)',
		async () => {
			const result = await verifySignIn({ message, signature, expectedNonce: nonce }, trusting, now);
			if (!result.ok) throw new Error(result.code);
		},
		options
	);
	bench(
		'signature check (checkEoaSignature: recovery and address comparison)',
		async () => {
			if (!(await checkEoaSignature({ address: account.address, message, signature }))) throw new Error('refused');
		},
		options
	);
	bench(
		'seal the session cookie',
		async () => {
			await codec.seal({ address: account.address.toLowerCase(), expiresAt: now + 1_209_600_000 });
		},
		options
	);
});
