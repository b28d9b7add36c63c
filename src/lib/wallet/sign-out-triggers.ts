import { REQUIRED_CHAIN_ID } from '$lib/chain';
import type { WalletConnection } from './wallet.svelte';

export const ACCOUNT_CHANGED = 'You were signed out because the active account in your wallet changed.';
export const CHAIN_CHANGED =
	'You were signed out because your wallet left Polygon (chain 137) while on the sign-in page.';

/**
 * The specification's "Client-side sign-out triggers" (docs/sign-in.md) for one connection change: a different active
 * account signs out everywhere; leaving chain 137 signs out only on /setup. Returns why, or null.
 */
export function signOutReason(
	next: WalletConnection,
	previous: WalletConnection,
	context: { signedInAddress: string | null; onSetupPage: boolean }
): string | null {
	const signedIn = context.signedInAddress?.toLowerCase();
	if (!signedIn) return null;
	if (next.address && next.address.toLowerCase() !== signedIn) return ACCOUNT_CHANGED;
	const chainMoved =
		next.status === 'connected' &&
		previous.chainId !== undefined &&
		next.chainId !== undefined &&
		next.chainId !== previous.chainId &&
		next.chainId !== REQUIRED_CHAIN_ID;
	if (context.onSetupPage && chainMoved) return CHAIN_CHANGED;
	return null;
}
