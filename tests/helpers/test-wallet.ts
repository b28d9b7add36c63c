import type { Page } from '@playwright/test';
import { numberToHex, type Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';

/** What the page sent to the wallet, in order. */
export interface WalletCall {
	method: string;
	params: unknown;
}

interface RpcAnswer {
	result?: unknown;
	error?: { code: number; message: string };
}

export interface TestWalletOptions {
	account: PrivateKeyAccount;
	/** The chain the wallet starts on (default 1, so sign-in has to switch). */
	chainId?: number;
	/** Chains the wallet knows; switching to another answers 4902 until it is added (default [1]). */
	knownChains?: number[];
}

const INFO = {
	uuid: '0b6c2a5e-4f2b-4a8e-9a53-6e0c1f1f0a11',
	name: 'Test Wallet',
	icon: 'data:image/svg+xml,%3Csvg xmlns="http://www.w3.org/2000/svg" width="32" height="32"/%3E',
	rdns: 'org.example.testwallet'
};

/**
 * Runs in the page before any of its scripts: an EIP-1193 provider at window.ethereum, announced
 * through EIP-6963, that forwards every request to Node (where the key and the state live).
 */
function providerScript(info: typeof INFO) {
	const listeners = new Map<string, Set<(data: unknown) => void>>();
	const bridge = (window as unknown as { __testWalletRequest: (call: unknown) => Promise<RpcAnswer> })
		.__testWalletRequest;
	const provider = {
		isTestWallet: true,
		async request({ method, params }: { method: string; params?: unknown }) {
			const answer = await bridge({ method, params: params ?? null });
			if (answer.error) throw Object.assign(new Error(answer.error.message), { code: answer.error.code });
			return answer.result;
		},
		on(event: string, listener: (data: unknown) => void) {
			if (!listeners.has(event)) listeners.set(event, new Set());
			listeners.get(event)!.add(listener);
			return provider;
		},
		removeListener(event: string, listener: (data: unknown) => void) {
			listeners.get(event)?.delete(listener);
			return provider;
		}
	};
	Object.assign(window, {
		ethereum: provider,
		__testWalletEmit(event: string, data: unknown) {
			for (const listener of [...(listeners.get(event) ?? [])]) listener(data);
		},
		__testWalletListeners: (event: string) => listeners.get(event)?.size ?? 0
	});
	const announce = () =>
		window.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail: Object.freeze({ info, provider }) }));
	window.addEventListener('eip6963:requestProvider', announce);
	announce();
}

export class TestWallet {
	account: PrivateKeyAccount;
	chainId: number;
	readonly knownChains: Set<number>;
	/** Whether the site holds the eth_accounts permission. */
	authorized = false;
	/** When set, personal_sign answers 4001 (the person refuses). */
	refuseSignatures = false;
	readonly calls: WalletCall[] = [];
	readonly signedMessages: string[] = [];
	readonly watchedAssets: unknown[] = [];
	readonly addedChains: unknown[] = [];

	private constructor(
		private readonly page: Page,
		options: TestWalletOptions
	) {
		this.account = options.account;
		this.chainId = options.chainId ?? 1;
		this.knownChains = new Set(options.knownChains ?? [1]);
	}

	static async install(page: Page, options: TestWalletOptions): Promise<TestWallet> {
		const wallet = new TestWallet(page, options);
		await page.exposeBinding('__testWalletRequest', (_source, call: WalletCall) => wallet.handle(call));
		await page.addInitScript(providerScript, INFO);
		return wallet;
	}

	/** The person picks another account in the wallet. */
	async changeAccount(account: PrivateKeyAccount): Promise<void> {
		this.account = account;
		if (this.authorized) await this.emit('accountsChanged', [account.address]);
	}

	/** The person switches the wallet's network themselves. */
	async changeChain(chainId: number): Promise<void> {
		this.knownChains.add(chainId);
		this.chainId = chainId;
		await this.emit('chainChanged', numberToHex(chainId));
	}

	/** Resolves once the page's wallet code listens for chain changes (wagmi adds that on connect). */
	async connectedInPage(): Promise<void> {
		await this.page.waitForFunction(
			() =>
				(window as unknown as { __testWalletListeners(e: string): number }).__testWalletListeners('chainChanged') > 0
		);
	}

	private async emit(event: string, data: unknown): Promise<void> {
		await this.page.evaluate(
			([e, d]) => (window as unknown as { __testWalletEmit(e: string, d: unknown): void }).__testWalletEmit(e, d),
			[event, data] as const
		);
	}

	private emitSoon(event: string, data: unknown) {
		// After the answer reaches the page, like a real wallet.
		setTimeout(() => void this.emit(event, data).catch(() => {}), 0);
	}

	private permissions() {
		return this.authorized
			? [
					{
						parentCapability: 'eth_accounts',
						caveats: [{ type: 'restrictReturnedAccounts', value: [this.account.address] }]
					}
				]
			: [];
	}

	async handle(call: WalletCall): Promise<RpcAnswer> {
		this.calls.push(call);
		const params = (Array.isArray(call.params) ? call.params : []) as unknown[];
		switch (call.method) {
			case 'eth_chainId':
				return { result: numberToHex(this.chainId) };
			case 'net_version':
				return { result: String(this.chainId) };
			case 'eth_accounts':
				return { result: this.authorized ? [this.account.address] : [] };
			case 'eth_requestAccounts':
				this.authorized = true;
				return { result: [this.account.address] };
			case 'wallet_requestPermissions':
				this.authorized = true;
				return { result: this.permissions() };
			case 'wallet_getPermissions':
				return { result: this.permissions() };
			case 'wallet_revokePermissions':
				this.authorized = false;
				return { result: null };
			case 'wallet_switchEthereumChain': {
				const id = Number((params[0] as { chainId: string }).chainId);
				if (!this.knownChains.has(id))
					return { error: { code: 4902, message: `Unrecognized chain ID ${numberToHex(id)}.` } };
				if (id !== this.chainId) {
					this.chainId = id;
					this.emitSoon('chainChanged', numberToHex(id));
				}
				return { result: null };
			}
			case 'wallet_addEthereumChain': {
				const chain = params[0] as { chainId: string };
				this.addedChains.push(chain);
				const id = Number(chain.chainId);
				this.knownChains.add(id);
				// Wallets offer to switch to a chain they have just added; this one accepts.
				if (id !== this.chainId) {
					this.chainId = id;
					this.emitSoon('chainChanged', numberToHex(id));
				}
				return { result: null };
			}
			case 'personal_sign': {
				const [data, address] = params as [Hex, string];
				if (!this.authorized || address.toLowerCase() !== this.account.address.toLowerCase()) {
					return { error: { code: 4100, message: 'The requested account has not been authorized.' } };
				}
				if (this.refuseSignatures) return { error: { code: 4001, message: 'User rejected the request.' } };
				this.signedMessages.push(Buffer.from(data.slice(2), 'hex').toString('utf8'));
				return { result: await this.account.signMessage({ message: { raw: data } }) };
			}
			case 'wallet_watchAsset':
				this.watchedAssets.push(call.params);
				return { result: true };
			default:
				return { error: { code: 4200, message: `The test wallet does not support ${call.method}.` } };
		}
	}
}
