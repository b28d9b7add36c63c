import { EventEmitter } from 'node:events';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { accountChanged, signOutReason } from '../sign-out-triggers';

// A page loaded again after a WalletConnect sign-in: wagmi's storage remembers WalletConnect as the
// last connector and the chains it asked for, and WalletConnect's provider finds its session (A on
// Polygon) in its own storage when it starts.
const A = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const B = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const PROJECT_ID = '0123456789abcdef0123456789abcdef';

class RestoredProvider extends EventEmitter {
	/** Whether WalletConnect's storage still holds the session (false: it ended or expired). */
	static sessionKept = true;
	static started = 0;
	static last: RestoredProvider | null = null;
	events = new EventEmitter();
	accounts = RestoredProvider.sessionKept ? [A] : [];
	chainId = 137;
	session: object | undefined = RestoredProvider.sessionKept
		? { namespaces: { eip155: { accounts: [`eip155:137:${A}`] } } }
		: undefined;
	static init = vi.fn(() => {
		RestoredProvider.started++;
		return Promise.resolve((RestoredProvider.last = new RestoredProvider()));
	});
	enable() {
		return Promise.resolve(this.accounts);
	}
	connect() {
		return Promise.reject(new Error('a restored session needs no new pairing'));
	}
	disconnect() {
		this.session = undefined;
		return Promise.resolve();
	}
}
vi.mock('@walletconnect/ethereum-provider', () => ({ EthereumProvider: RestoredProvider }));

const storage = new Map<string, string>();
// A top-level page (not in a frame: no Safe App), with wagmi's storage.
const page: EventTarget & { parent?: unknown } = Object.assign(new EventTarget(), {
	localStorage: {
		getItem: (key: string) => storage.get(key) ?? null,
		setItem: (key: string, value: string) => void storage.set(key, value),
		removeItem: (key: string) => void storage.delete(key)
	}
});
page.parent = page;

beforeAll(() => {
	storage.set('wagmi.recentConnectorId', JSON.stringify('walletConnect'));
	storage.set('wagmi.walletConnect.requestedChains', JSON.stringify([137]));
	// The page's address: its origin for WalletConnect, its path for the messages' locale.
	const location = {
		origin: 'https://portal.example.org',
		href: 'https://portal.example.org/setup',
		pathname: '/setup'
	};
	vi.stubGlobal('window', Object.assign(page, { location }));
	vi.stubGlobal('location', location);
});
afterAll(() => vi.unstubAllGlobals());

describe('a WalletConnect session after a reload', () => {
	it('without a project id configured, nothing of WalletConnect loads', async () => {
		vi.resetModules();
		const { getWallet } = await import('../wallet.svelte');
		await getWallet().reconnect({ walletConnectProjectId: null });
		expect(RestoredProvider.started).toBe(0);
		expect(getWallet().connection.status).toBe('disconnected');
	});

	it('is restored after the page is ready, and its account changes reach the sign-out rules again', async () => {
		vi.resetModules();
		const { getWallet } = await import('../wallet.svelte');
		const wallet = getWallet();
		await wallet.reconnect({ walletConnectProjectId: PROJECT_ID });
		// The page does not wait for WalletConnect: the session comes back in the background.
		await vi.waitFor(() => expect(wallet.connection).toMatchObject({ address: A, chainId: 137, status: 'connected' }));
		expect(RestoredProvider.started).toBe(1);
		expect(wallet.connectorName).toBe('WalletConnect');

		const reasons: (string | null)[] = [];
		const stop = wallet.onConnectionChange((next, previous) =>
			reasons.push(signOutReason(next, previous, { signedInAddress: A, onSetupPage: false }))
		);
		RestoredProvider.last!.emit('accountsChanged', [B]);
		stop();
		expect(reasons).toEqual([accountChanged()]);
	});

	it('an ended session is forgotten: no connection, and the next page loads nothing of WalletConnect', async () => {
		RestoredProvider.sessionKept = false;
		vi.resetModules();
		const { getWallet } = await import('../wallet.svelte');
		const wallet = getWallet();
		await wallet.reconnect({ walletConnectProjectId: PROJECT_ID });
		await vi.waitFor(() => expect(storage.has('wagmi.recentConnectorId')).toBe(false));
		expect(wallet.connection.status).toBe('disconnected');
	});
});
