// Every standard client's sign-in message is accepted (docs/sign-in.md "Bounding the parser"):
// each built by the client library itself, signed by a test key, posted to the built server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SiweMessage } from 'siwe';
import { createSiweMessage } from 'viem/siwe';
import { createEncodedRecap, formatMessage, mergeEncodedRecaps } from '@walletconnect/utils';
import { member } from '../helpers/auth';
import { startPortalOnOwnDatabase, type OwnDatabasePortal } from '../helpers/own-database';
import { fetchNonce, postVerify } from '../helpers/siwe';

type Origin = { host: string; origin: string; nonce: string };
const minutes = (n: number) => new Date(Date.now() + n * 60_000);
const iso = (n: number) => minutes(n).toISOString();
// Every reserved character of RFC 3986 (the grammar's statement allows them, unreserved ones and spaces).
const STATEMENT = "Sign in: it's free & safe; see https://x.example/?a=1#b (v2) [terms] @portal! $5 *each* +tax, a=b.";

/** What WalletConnect's One-Click Auth (sign-client `authenticate`) and Reown AppKit's SIWE sign. */
function walletConnectMessage({ host, origin, nonce }: Origin, withRecaps: boolean): string {
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
	return formatMessage(
		{
			type: 'eip4361',
			domain: host,
			aud: `${origin}/setup`,
			version: '1',
			nonce,
			iat: iso(0),
			exp: iso(10),
			nbf: iso(-1),
			statement: 'Sign in to the member portal.',
			requestId: 'wc-7c1f2b',
			resources: withRecaps ? [`${origin}/terms`, recap] : [`${origin}/terms`]
		},
		`did:pkh:eip155:137:${member.address}`
	);
}

const CLIENTS: [label: string, build: (o: Origin) => string][] = [
	[
		'siwe prepareMessage with every field (scheme, statement, request id, not-before, two resources)',
		({ host, origin, nonce }) =>
			new SiweMessage({
				scheme: 'http',
				domain: host,
				address: member.address,
				statement: STATEMENT,
				uri: `${origin}/setup?from=home#sign-in`,
				version: '1',
				chainId: 137,
				nonce,
				issuedAt: iso(0),
				expirationTime: iso(10),
				notBefore: iso(-5),
				requestId: 'req-42:x=1@a',
				resources: [`${origin}/terms`, 'ipfs://bafybeiemxf5abjwjbikoz4mc3a3dla6ual3jsgpdr4cjr3oz3evfyavhwq']
			}).prepareMessage()
	],
	[
		'viem createSiweMessage with every optional field and three resources',
		({ host, origin, nonce }) =>
			createSiweMessage({
				scheme: 'http',
				domain: host,
				address: member.address,
				statement: STATEMENT,
				uri: `${origin}/setup`,
				version: '1',
				chainId: 137,
				nonce,
				issuedAt: minutes(0),
				expirationTime: minutes(10),
				notBefore: minutes(-5),
				requestId: '0f6a9c2e-3b1d-4e8f-9a7b-5c4d3e2f1a0b',
				resources: [
					`${origin}/terms`,
					'https://docs.example/privacy?lang=en#data',
					'urn:uuid:6e8bc430-9c3a-11d9-9669-0800200c9a66'
				]
			})
	],
	["Reown AppKit's formatMessage (WalletConnect's, re-exported), no ReCaps", (o) => walletConnectMessage(o, false)],
	['WalletConnect One-Click Auth with ReCaps (EIP-5573)', (o) => walletConnectMessage(o, true)]
];

describe('POST /api/auth/verify: messages of the standard clients', () => {
	let portal: OwnDatabasePortal;
	let origin: string;
	beforeAll(async () => {
		portal = await startPortalOnOwnDatabase();
		origin = new URL(portal.url).origin;
	}, 120_000);
	afterAll(() => portal?.stop());

	it.each(CLIENTS)('%s: signed by the member, 200 with the address', async (_label, build) => {
		const { nonce, cookie } = await fetchNonce(portal.url);
		const message = build({ host: new URL(origin).host, origin, nonce });
		const response = await postVerify(
			portal.url,
			{ message, signature: await member.signMessage({ message }) },
			cookie
		);
		expect(await response.json()).toEqual({ address: member.address, isAdmin: false });
		expect(response.status).toBe(200);
	});

	it('the One-Click Auth message is the 1.1 KB one the bound used to refuse', () => {
		const message = walletConnectMessage(
			{ host: 'portal.example', origin: 'https://portal.example', nonce: 'n'.repeat(17) },
			true
		);
		expect(Buffer.byteLength(message)).toBeGreaterThan(1024);
		expect(message).toContain('I further authorize the stated URI to perform the following actions');
		expect(message).toMatch(/\n- urn:recap:[\w-]+$/);
	});
});
