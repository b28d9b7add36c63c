import { EventEmitter } from 'node:events';
import { disconnect } from '@wagmi/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { accountChanged, chainChanged, signOutReason } from '../sign-out-triggers';
import { getWallet, type WalletConnection } from '../wallet.svelte';
import { verifyMessage } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { createEncodedRecap, formatMessage } from '@walletconnect/utils';
import {
	connectWalletConnect,
	relayUnreachable,
	walletConnectOneClickAuth,
	WalletConnectUnreachableError
} from './walletconnect';

const A = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const B = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const PROJECT_ID = '0123456789abcdef0123456789abcdef';
// A's key (a well-known development key; it holds nothing).
const accountA = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');

/**
 * WalletConnect's EthereumProvider as wagmi's connector sees it, without a relay: `pairing` decides
 * whether connect() hands out a pairing link and whether a wallet approves.
 */
class FakeProvider extends EventEmitter {
	static pairing: 'approve' | 'waiting' | 'silent' = 'approve';
	/** What the wallet app does with One-Click Auth: signs in the same approval, or only connects (no support). */
	static oneClick: 'sign' | 'connect only' = 'sign';
	connects = 0;
	authenticated: Record<string, unknown>[] = [];
	// WalletConnect's sign client formats the signed object with @walletconnect/utils' formatMessage.
	signer = {
		client: {
			formatAuthMessage: ({ request, iss }: { request: Parameters<typeof formatMessage>[0]; iss: string }) =>
				formatMessage(request, iss)
		}
	};
	static last: FakeProvider | null = null;
	events = new EventEmitter();
	accounts: string[] = [];
	chainId = 137;
	session: object | undefined = undefined;
	modal = { close: vi.fn() };
	static init = vi.fn((options: Record<string, unknown>) => {
		void options;
		return Promise.resolve((FakeProvider.last = new FakeProvider()));
	});
	async authenticate(
		params: Record<string, unknown> & { chains: number[]; nonce: string; domain: string; uri: string }
	) {
		this.authenticated.push(params);
		if (FakeProvider.pairing === 'silent') return new Promise<never>(() => {});
		this.emit('display_uri', 'wc:pairing@2?relay-protocol=irn');
		// The session One-Click Auth opens, on the chains asked for.
		this.session = { namespaces: { eip155: { accounts: [`eip155:137:${A}`], chains: ['eip155:137'] } } };
		this.accounts = [A];
		if (FakeProvider.oneClick === 'connect only') return { session: this.session };
		const p = {
			type: 'eip4361',
			domain: params.domain,
			aud: params.uri,
			version: '1',
			nonce: params.nonce,
			iat: params.iat as string,
			exp: params.exp as string,
			statement: params.statement as string,
			resources: [createEncodedRecap('eip155', 'request', params.methods as string[])],
			iss: `did:pkh:eip155:${params.chains[0]}:${A}`
		};
		const signature = await accountA.signMessage({ message: formatMessage(p, p.iss) });
		return { session: this.session, auths: [{ h: { t: 'caip122' }, p, s: { t: 'eip191', s: signature } }] };
	}
	async connect() {
		this.connects++;
		// 'silent': the relay never answers, so no link; 'waiting': the link is shown, nobody approves yet.
		if (FakeProvider.pairing === 'silent') return new Promise<void>(() => {});
		this.emit('display_uri', 'wc:pairing@2?relay-protocol=irn');
		if (FakeProvider.pairing === 'waiting') return new Promise<void>(() => {});
		this.session = {};
		this.accounts = [A];
	}
	enable() {
		return Promise.resolve(this.accounts);
	}
	disconnect() {
		this.session = undefined;
		return Promise.resolve();
	}
}
vi.mock('@walletconnect/ethereum-provider', () => ({ EthereumProvider: FakeProvider }));

afterEach(() => {
	FakeProvider.pairing = 'approve';
	FakeProvider.oneClick = 'sign';
});

describe('WalletConnect in the wallet module', () => {
	it('connects on Polygon only, with the page as its metadata', async () => {
		const wallet = getWallet();
		await connectWalletConnect(wallet, PROJECT_ID, { origin: 'https://portal.example.org', timeoutMs: 1_000 });
		expect(wallet.connection).toMatchObject({ address: A, chainId: 137, status: 'connected' });
		expect(wallet.connectorName).toBe('WalletConnect');
		const options = FakeProvider.init.mock.calls[0]![0];
		expect(options).toMatchObject({ projectId: PROJECT_ID, optionalChains: [137], showQrModal: true });
		expect(options.metadata).toMatchObject({ url: 'https://portal.example.org' });
		// The injected wallets' list is unchanged: WalletConnect is its own choice.
		expect(wallet.connectors.some((c) => c.id === 'walletConnect')).toBe(false);
	});

	it('its account and chain changes reach the same sign-out rules as an injected wallet', async () => {
		const wallet = getWallet();
		await connectWalletConnect(wallet, PROJECT_ID, { origin: 'https://portal.example.org' });
		const reasons: (string | null)[] = [];
		const seen: WalletConnection[] = [];
		const stop = wallet.onConnectionChange((next, previous) => {
			seen.push(next);
			reasons.push(signOutReason(next, previous, { signedInAddress: A, onSetupPage: true }));
		});
		// The wallet app moves to chain 1, then to another account, over the relay.
		FakeProvider.last!.emit('chainChanged', '0x1');
		FakeProvider.last!.emit('accountsChanged', [B]);
		stop();
		expect(seen.map((c) => [c.address, c.chainId])).toEqual([
			[A, 1],
			[B, 1]
		]);
		expect(reasons).toEqual([chainChanged(), accountChanged()]);
	});

	it('without a pairing link in time it fails with the unreachable message and closes the modal', async () => {
		const wallet = getWallet();
		await disconnect(wallet.config);
		FakeProvider.pairing = 'silent';
		const started = Date.now();
		const failing = connectWalletConnect(wallet, PROJECT_ID, { origin: 'https://portal.example.org', timeoutMs: 200 });
		await expect(failing).rejects.toThrow(WalletConnectUnreachableError);
		await expect(failing).rejects.toThrow(relayUnreachable());
		expect(Date.now() - started).toBeLessThan(1_000);
		expect(FakeProvider.last!.modal.close).toHaveBeenCalled();
	});

	it('once the pairing link is shown, the member is not hurried', async () => {
		const wallet = getWallet();
		await disconnect(wallet.config);
		FakeProvider.pairing = 'waiting';
		let settled = false;
		void connectWalletConnect(wallet, PROJECT_ID, { origin: 'https://portal.example.org', timeoutMs: 100 }).finally(
			() => (settled = true)
		);
		await new Promise((resolve) => setTimeout(resolve, 400));
		expect(settled).toBe(false);
	});
});

describe('One-Click Auth over WalletConnect', () => {
	const request = {
		domain: 'portal.example.org',
		uri: 'https://portal.example.org',
		chainId: 137,
		nonce: 'abcdefghijklmnop1234',
		statement: 'Sign in to the member portal.',
		issuedAt: new Date('2026-11-25T12:00:00Z'),
		expirationTime: new Date('2026-11-25T12:10:00Z')
	};

	it('one approval: the wallet connects and signs; the message is the one it signed, and wagmi takes over its session without a second pairing', async () => {
		const wallet = getWallet();
		await disconnect(wallet.config);
		// One provider a page: count what this sign-in adds.
		const pairings = FakeProvider.last?.connects ?? 0;
		const asked = FakeProvider.last?.authenticated.length ?? 0;
		const signed = await walletConnectOneClickAuth(wallet, PROJECT_ID, { origin: request.uri, timeoutMs: 1_000 })(
			request
		);
		const provider = FakeProvider.last!;
		expect(provider.authenticated.slice(asked)).toEqual([
			expect.objectContaining({
				chains: [137],
				domain: 'portal.example.org',
				uri: 'https://portal.example.org',
				nonce: 'abcdefghijklmnop1234',
				iat: '2026-11-25T12:00:00.000Z',
				exp: '2026-11-25T12:10:00.000Z',
				methods: expect.arrayContaining(['personal_sign']) as unknown
			})
		]);
		expect(signed?.message).toContain('Nonce: abcdefghijklmnop1234');
		expect(signed?.message).toContain('urn:recap:');
		expect(await verifyMessage({ address: A, message: signed!.message, signature: signed!.signature })).toBe(true);
		expect(provider.connects).toBe(pairings);
		expect(wallet.connection).toMatchObject({ address: A, chainId: 137, status: 'connected' });
	});

	it('a wallet without One-Click Auth only connects: null (the flow then asks for the signature), still one pairing', async () => {
		const wallet = getWallet();
		await disconnect(wallet.config);
		FakeProvider.oneClick = 'connect only';
		const pairings = FakeProvider.last?.connects ?? 0;
		const signed = await walletConnectOneClickAuth(wallet, PROJECT_ID, { origin: request.uri, timeoutMs: 1_000 })(
			request
		);
		expect(signed).toBeNull();
		expect(FakeProvider.last!.connects).toBe(pairings);
		expect(wallet.connection).toMatchObject({ address: A, status: 'connected' });
	});

	it('without a pairing link in time it fails with the unreachable message and closes the modal', async () => {
		const wallet = getWallet();
		await disconnect(wallet.config);
		FakeProvider.pairing = 'silent';
		const failing = walletConnectOneClickAuth(wallet, PROJECT_ID, { origin: request.uri, timeoutMs: 200 })(request);
		await expect(failing).rejects.toThrow(relayUnreachable());
		expect(FakeProvider.last!.modal.close).toHaveBeenCalled();
	});
});
