// Parsing alone (issue 25's figure: an honest 1.1 KB ReCap message <= 1 ms of parsing), in one process,
// next to a short message and the hostile 8 KiB shape that cost the reference parser most.
// Usage: BENCH_SECONDS=2 npx vitest bench --run bench/siwe-parse.bench.ts
import { createEncodedRecap, formatMessage, mergeEncodedRecaps } from '@walletconnect/utils';
import { privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { bench, describe } from 'vitest';
import { parseSignInMessage } from '../src/lib/server/auth/siwe';

// A well-known development key; it holds nothing.
const account = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const url = 'https://portal.example';
const iso = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();
const short = createSiweMessage({
	domain: 'portal.example',
	uri: url,
	address: account.address,
	chainId: 137,
	nonce: 'benchNonce0123456789',
	version: '1',
	statement: 'Sign in to the member portal.',
	issuedAt: new Date(),
	expirationTime: new Date(Date.now() + 10 * 60_000)
});
// WalletConnect's One-Click Auth message with ReCaps, as tests/http/auth-verify-clients.test.ts signs it
// (the 1.1 KB message of issue 25): two ReCaps merged, every optional field.
const recap = mergeEncodedRecaps(
	createEncodedRecap('eip155', 'request', [
		'personal_sign',
		'eth_sendTransaction',
		'eth_signTypedData_v4',
		'wallet_switchEthereumChain',
		'wallet_addEthereumChain'
	]),
	createEncodedRecap('https://notify.walletconnect.com', 'manage', ['all-apps-notifications'])
);
const oneClickAuth = formatMessage(
	{
		type: 'eip4361',
		domain: 'portal.example',
		aud: `${url}/setup`,
		version: '1',
		nonce: 'benchNonce0123456789',
		iat: iso(0),
		exp: iso(10),
		nbf: iso(-1),
		statement: 'Sign in to the member portal.',
		requestId: 'bench-request-id',
		resources: [`${url}/terms`, recap]
	},
	`did:pkh:eip155:137:${account.address}`
);
// The shape the reference parser found dearest per byte without the scanners: slashes in the URI path.
const slashes = short.replace(`URI: ${url}`, `URI: ${url}/${'/'.repeat(8192 - short.length - 40)}`);

for (const [name, text] of [
	['short message', short],
	['One-Click Auth message with ReCaps', oneClickAuth],
	['8 KiB, slashes in the URI path (hostile)', slashes]
] as const)
	if (name !== '8 KiB, slashes in the URI path (hostile)' && !parseSignInMessage(text))
		throw new Error(`${name} is refused`);

const options = { time: Number(process.env.BENCH_SECONDS ?? 4) * 1000, warmupTime: 1000, warmupIterations: 50 };
describe(`siwe parse (short ${short.length} B, One-Click Auth ${oneClickAuth.length} B, hostile ${slashes.length} B)`, () => {
	bench('short message', () => void parseSignInMessage(short), options);
	bench('One-Click Auth message with ReCaps', () => void parseSignInMessage(oneClickAuth), options);
	bench('8 KiB, slashes in the URI path (hostile)', () => void parseSignInMessage(slashes), options);
});
