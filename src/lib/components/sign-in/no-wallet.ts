import type { Component, Snippet } from 'svelte';
import type { NoWalletTexts } from '$lib/i18n/texts';
import { isPhone } from '$lib/wallet/phone';

/** The no-wallet help, or its phone's version (wallet-app links), each only where it is shown. */
export type NoWalletHelp = Component<{ walletConnect?: Snippet; texts: NoWalletTexts }>;

/**
 * Loads what a browser with no wallet is told: a phone opens the page in a wallet app, a computer
 * installs an extension. Their words come with /setup's data (src/lib/i18n/texts.ts).
 */
export async function loadNoWalletHelp(): Promise<NoWalletHelp> {
	const module = isPhone(navigator, (query) => matchMedia(query).matches)
		? await import('./NoWalletPhone.svelte')
		: await import('./NoWallet.svelte');
	return module.default;
}
