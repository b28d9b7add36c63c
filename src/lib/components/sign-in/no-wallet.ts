import type { Component, Snippet } from 'svelte';
import { isPhone } from '$lib/wallet/phone';

/** The no-wallet help, or its phone's version (wallet-app links), each only where it is shown. */
export type NoWalletHelp = Component<{ walletConnect?: Snippet }>;

/**
 * Loads what a browser with no wallet is told: a phone opens the page in a wallet app, a computer
 * installs an extension. Each loads only its own words (all five locales of them).
 */
export async function loadNoWalletHelp(): Promise<NoWalletHelp> {
	const module = isPhone(navigator, (query) => matchMedia(query).matches)
		? await import('./NoWalletPhone.svelte')
		: await import('./NoWallet.svelte');
	return module.default;
}
