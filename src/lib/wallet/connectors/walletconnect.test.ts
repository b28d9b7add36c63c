import { EventEmitter } from 'node:events';
import { disconnect } from '@wagmi/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ACCOUNT_CHANGED, CHAIN_CHANGED, signOutReason } from '../sign-out-triggers';
import { getWallet, type WalletConnection } from '../wallet.svelte';
import { connectWalletConnect, RELAY_UNREACHABLE, WalletConnectUnreachableError } from './walletconnect';

const A = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const B = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const PROJECT_ID = '0123456789abcdef0123456789abcdef';

/**
 * WalletConnect's EthereumProvider as wagmi's connector sees it, without a relay: `pairing` decides
 * whether connect() hands out a pairing link and whether a wallet approves.
 */
class FakeProvider extends EventEmitter {
	static pairing: 'approve' | 'waiting' | 'silent' = 'approve';
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
	async connect() {
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
		expect(reasons).toEqual([CHAIN_CHANGED, ACCOUNT_CHANGED]);
	});

	it('without a pairing link in time it fails with the unreachable message and closes the modal', async () => {
		const wallet = getWallet();
		await disconnect(wallet.config);
		FakeProvider.pairing = 'silent';
		const started = Date.now();
		const failing = connectWalletConnect(wallet, PROJECT_ID, { origin: 'https://portal.example.org', timeoutMs: 200 });
		await expect(failing).rejects.toThrow(WalletConnectUnreachableError);
		await expect(failing).rejects.toThrow(RELAY_UNREACHABLE);
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
