import {
	decodeAbiParameters,
	erc6492SignatureValidatorByteCode,
	getAddress,
	serializeErc6492Signature,
	type Hex
} from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJson } from '../helpers/json';
import { startFakeRpc, type FakeRpc } from '../helpers/rpc';
import { startServer, type RunningServer } from '../helpers/server';
import { buildMessage, fetchNonce, postVerify, sessionCookieFrom, signIn, testAccount } from '../helpers/siwe';

const owner = testAccount('member');
const stranger = testAccount('other');
// A deployed ERC-1271 wallet owned by `owner`, and a counterfactual (ERC-6492) one.
const deployed = getAddress('0x1111111111111111111111111111111111111111');
const counterfactual = getAddress('0x2222222222222222222222222222222222222222');
const factory = getAddress('0x3333333333333333333333333333333333333333');
const factoryData: Hex = '0xdeadbeef00000000000000000000000000000000000000000000000000000001';

const servers: RunningServer[] = [];
const fakes: FakeRpc[] = [];
afterAll(async () => {
	await Promise.all(servers.map((s) => s.stop()));
	await Promise.all(fakes.map((f) => f.close()));
});

async function startWith(env: Record<string, string | undefined>) {
	const server = await startServer({ env });
	servers.push(server);
	return server;
}

/** Signs in `address` with a signature made by `sign`, through real HTTP. */
async function attempt(baseUrl: string, address: `0x${string}`, sign: (message: string) => Promise<Hex>) {
	const { nonce, cookie } = await fetchNonce(baseUrl);
	const host = new URL(baseUrl).host;
	const message = buildMessage({ domain: host, uri: `http://${host}`, nonce, address });
	const response = await postVerify(baseUrl, { message, signature: await sign(message) }, cookie);
	return { response, body: await readJson<{ address?: string; error?: { code: string } }>(response) };
}

const ownerSigns = (message: string) => owner.signMessage({ message });

describe('contract wallets (ERC-1271 / ERC-6492) through POLYGON_RPC_URL on a fake chain 137', () => {
	let rpc: FakeRpc;
	let server: RunningServer;

	beforeAll(async () => {
		rpc = await startFakeRpc({
			wallets: [
				{ address: deployed, owner: owner.address },
				{ address: counterfactual, owner: owner.address, counterfactual: { factory, factoryData } }
			]
		});
		fakes.push(rpc);
		server = await startWith({ POLYGON_RPC_URL: rpc.url });
	});

	it('a deployed wallet signs in when its owner signed; viem asked the chain through the universal validator', async () => {
		const earlier = rpc.calls.length;
		const { response, body } = await attempt(server.url, deployed, ownerSigns);
		expect(response.status).toBe(200);
		expect(body).toEqual({ address: deployed, isAdmin: false });
		const me = await fetch(`${server.url}/api/auth/me`, {
			headers: { cookie: `session=${sessionCookieFrom(response)}` }
		});
		expect(await readJson(me)).toEqual({ address: deployed, isAdmin: false });

		expect(rpc.calls.some((c) => c.method === 'eth_chainId')).toBe(true);
		const call = rpc.calls.slice(earlier).find((c) => c.method === 'eth_call');
		const data = (call?.params[0] as { data: Hex }).data;
		expect(data.startsWith(erc6492SignatureValidatorByteCode)).toBe(true);
		const [signer] = decodeAbiParameters(
			[{ type: 'address' }, { type: 'bytes32' }, { type: 'bytes' }],
			`0x${data.slice(erc6492SignatureValidatorByteCode.length)}`
		);
		expect(signer).toBe(deployed);
	});

	it('a deployed wallet is refused when someone other than its owner signed', async () => {
		const { response, body } = await attempt(server.url, deployed, (message) => stranger.signMessage({ message }));
		expect(response.status).toBe(401);
		expect(body.error?.code).toBe('signature_invalid');
	});

	it('a counterfactual wallet signs in with an ERC-6492 wrapped signature', async () => {
		const { response, body } = await attempt(server.url, counterfactual, async (message) =>
			serializeErc6492Signature({ address: factory, data: factoryData, signature: await ownerSigns(message) })
		);
		expect(response.status).toBe(200);
		expect(body.address).toBe(counterfactual);
	});

	it('an ERC-6492 signature naming another deployment is refused', async () => {
		const { response, body } = await attempt(server.url, counterfactual, async (message) =>
			serializeErc6492Signature({ address: factory, data: '0xdeadbeef', signature: await ownerSigns(message) })
		);
		expect(response.status).toBe(401);
		expect(body.error?.code).toBe('signature_invalid');
	});

	it('an ordinary account still signs in by local recovery, without asking the chain', async () => {
		const before = rpc.calls.filter((c) => c.method === 'eth_call').length;
		await signIn(server.url, stranger);
		expect(rpc.calls.filter((c) => c.method === 'eth_call').length).toBe(before);
	});
});

describe('contract wallets without a usable POLYGON_RPC_URL', () => {
	it('without POLYGON_RPC_URL a contract wallet gets signature_invalid', async () => {
		const server = await startWith({});
		const { response, body } = await attempt(server.url, deployed, ownerSigns);
		expect(response.status).toBe(401);
		expect(body.error?.code).toBe('signature_invalid');
	}, 120_000);

	it('an RPC endpoint that serves another chain is not trusted: signature_invalid, no eth_call', async () => {
		const mainnet = await startFakeRpc({ chainId: 1, wallets: [{ address: deployed, owner: owner.address }] });
		fakes.push(mainnet);
		const server = await startWith({ POLYGON_RPC_URL: mainnet.url });
		const { response, body } = await attempt(server.url, deployed, ownerSigns);
		expect(response.status).toBe(401);
		expect(body.error?.code).toBe('signature_invalid');
		expect(mainnet.calls.map((c) => c.method)).toContain('eth_chainId');
		expect(mainnet.calls.map((c) => c.method)).not.toContain('eth_call');
	}, 120_000);
});
