/**
 * The browser's wallet: one Svelte 5 module over @wagmi/core and viem. Import it only dynamically
 * (from onMount), so pages that never need a wallet ship none of this code.
 */
import {
	connect,
	createConfig,
	createStorage,
	getConnection,
	custom,
	injected,
	noopStorage,
	reconnect,
	signMessage,
	switchChain,
	watchAsset,
	watchConnection,
	watchConnectors,
	type Config,
	type Connector,
	type CreateConnectorFn,
	type GetConnectionReturnType
} from '@wagmi/core';
import { polygon } from 'viem/chains';
import { env } from '$env/dynamic/public';
import { REQUIRED_CHAIN_ID, walletConnectProjectIdFrom, type CommunityToken } from '$lib/chain/chain';
import type { SigningWallet } from './sign-in';
import type { SafeDetails } from './connectors/safe';

export interface WalletConnection {
	address: `0x${string}` | undefined;
	/** The connector's raw chain id: also chains this app has not configured (unlike watchChainId). */
	chainId: number | undefined;
	status: GetConnectionReturnType['status'];
}

function snapshot(c: GetConnectionReturnType): WalletConnection {
	return { address: c.address, chainId: c.chainId, status: c.status };
}

/** The wallets a person may pick: every EIP-6963 wallet, else the injected window.ethereum. */
function choosable(connectors: readonly Connector[]): Connector[] {
	const announced = connectors.filter((c) => c.type === 'injected' && c.id !== 'injected');
	if (announced.length > 0) return announced;
	const hasInjected = typeof window !== 'undefined' && (window as { ethereum?: unknown }).ethereum != null;
	return hasInjected ? connectors.filter((c) => c.id === 'injected') : [];
}

/**
 * Where wagmi remembers the last wallet: localStorage, or nothing where the browser refuses this page its
 * storage (reading localStorage throws in a third-party frame when third-party cookies are blocked, as
 * inside Safe{Wallet}); the Safe App reconnects from the framing Safe anyway.
 */
function browserStorage(): Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> {
	try {
		return window.localStorage;
	} catch {
		return noopStorage;
	}
}

class Wallet {
	readonly config: Config;
	connectors = $state.raw<Connector[]>([]);
	connection = $state.raw<WalletConnection>({ address: undefined, chainId: undefined, status: 'disconnected' });
	connectorName = $state<string | null>(null);
	/** The Safe framing this page when it runs as a Safe App in Safe{Wallet}; null elsewhere. */
	safe = $state.raw<SafeDetails | null>(null);
	#reconnected: Promise<unknown> | null = null;

	constructor() {
		this.config = createConfig({
			chains: [polygon],
			connectors: [injected()],
			// The app reads nothing from the chain itself; every request goes through the wallet.
			transports: { [polygon.id]: custom({ request: () => Promise.reject(new Error('no RPC reads in this app')) }) },
			multiInjectedProviderDiscovery: true,
			storage: createStorage({ storage: browserStorage() })
		});
		this.connectors = choosable(this.config.connectors);
		watchConnectors(this.config, { onChange: (list) => (this.connectors = choosable(list)) });
		watchConnection(this.config, {
			onChange: (next) => {
				this.connection = snapshot(next);
				this.connectorName = next.connector?.name ?? null;
			}
		});
		this.connection = snapshot(getConnection(this.config));
	}

	/**
	 * Reconnects to the wallet used last time, once per page load. In a frame (a Safe App in
	 * Safe{Wallet}) it connects to the framing Safe instead, whose connector loads only then. When
	 * wagmi's last connector was WalletConnect it then restores that session in the background
	 * (connectors/walletconnect.ts), so that its account and chain changes reach the sign-out rules
	 * again: WalletConnect's code loads only for that member, and nothing waits for its relay.
	 */
	reconnect({ walletConnectProjectId = walletConnectProjectIdFrom(env) } = {}): Promise<unknown> {
		this.#reconnected ??= this.#safeInFrame()
			.catch(() => null)
			.then((safe) => reconnect(this.config, safe ? { connectors: [safe] } : {}))
			.catch(() => [])
			.finally(() => void this.#restoreWalletConnect(walletConnectProjectId).catch(() => {}));
		return this.#reconnected;
	}

	async #restoreWalletConnect(projectId: string | null): Promise<void> {
		if (this.safe || !projectId || (await this.config.storage?.getItem('recentConnectorId')) !== 'walletConnect')
			return;
		await (await import('./connectors/walletconnect')).restoreWalletConnect(this, projectId, location.origin);
	}

	async #safeInFrame(): Promise<Connector | null> {
		if (typeof window === 'undefined' || window.parent === window) return null;
		const found = await (await import('./connectors/safe')).findSafe();
		if (!found) return null;
		// As wagmi registers the wallets it discovers (EIP-6963).
		const connector = this.config._internal.connectors.setup(found.connector);
		this.config._internal.connectors.setState((list) => [...list, connector]);
		this.safe = found.details;
		return connector;
	}

	/** Calls `listener(next, previous)` on every change of the connection (account, raw chain id, status). */
	onConnectionChange(listener: (next: WalletConnection, previous: WalletConnection) => void): () => void {
		return watchConnection(this.config, {
			onChange: (next, previous) => listener(snapshot(next), snapshot(previous))
		});
	}

	/**
	 * Sets up a connector created on demand (src/lib/wallet/connectors/, loaded only when picked) in this page's
	 * config. It is not added to `connectors` (the wallets found in the browser); connect to it with connect().
	 */
	addConnector(create: CreateConnectorFn): Connector {
		return this.config._internal.connectors.setup(create);
	}

	async connect(connector: Connector): Promise<void> {
		const current = getConnection(this.config);
		if (current.status === 'connected' && current.connector?.uid === connector.uid) return;
		await connect(this.config, { connector });
	}

	/** Switches to Polygon; wagmi adds the chain (wallet_addEthereumChain) when the wallet answers 4902. */
	async switchToPolygon(): Promise<void> {
		await switchChain(this.config, { chainId: REQUIRED_CHAIN_ID });
	}

	/** The connected wallet as the sign-in routine needs it, or null when no account is connected. */
	signer(): SigningWallet | null {
		const address = this.connection.address;
		if (!address) return null;
		return {
			address,
			chainId: () => getConnection(this.config).chainId,
			switchToRequiredChain: () => this.switchToPolygon(),
			signMessage: (message) => signMessage(this.config, { account: address, message })
		};
	}

	/** Asks the wallet to track the community token (wallet_watchAsset, EIP-747). */
	async watchToken(token: CommunityToken): Promise<boolean> {
		if (getConnection(this.config).chainId !== REQUIRED_CHAIN_ID) await this.switchToPolygon();
		return watchAsset(this.config, {
			type: 'ERC20',
			options: {
				address: token.address,
				symbol: token.symbol,
				decimals: token.decimals,
				...(token.image ? { image: token.image } : {})
			}
		});
	}
}

let wallet: Wallet | null = null;

/** The page's one wallet, created on first use (browser only). */
export function getWallet(): Wallet {
	wallet ??= new Wallet();
	return wallet;
}

export type { Wallet, Connector };
