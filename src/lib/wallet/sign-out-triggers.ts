import { REQUIRED_CHAIN_ID } from '$lib/chain/chain';
import { signin_signed_out_account } from '$lib/paraglide/messages/signin_signed_out_account.js';
import { signin_signed_out_chain } from '$lib/paraglide/messages/signin_signed_out_chain.js';
import type { WalletConnection } from './wallet.svelte';

/** Why the browser signed the member out, in the page's language (shown once in the header). */
export const accountChanged = (): string => signin_signed_out_account();
export const chainChanged = (): string => signin_signed_out_chain({ chain: REQUIRED_CHAIN_ID });

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
	if (next.address && next.address.toLowerCase() !== signedIn) return accountChanged();
	const chainMoved =
		next.status === 'connected' &&
		previous.chainId !== undefined &&
		next.chainId !== undefined &&
		next.chainId !== previous.chainId &&
		next.chainId !== REQUIRED_CHAIN_ID;
	if (context.onSetupPage && chainMoved) return chainChanged();
	return null;
}

/** The wallet as the sign-out watcher sees it (wallet.svelte.ts; a fake in tests). */
export interface WatchedWallet {
	readonly connection: WalletConnection;
	onConnectionChange(listener: (next: WalletConnection, previous: WalletConnection) => void): unknown;
	reconnect(): Promise<unknown>;
}

const DISCONNECTED: WalletConnection = { address: undefined, chainId: undefined, status: 'disconnected' };

/**
 * Watches a signed-in member's wallet and calls `signOut` with the reason when a trigger fires
 * (signOutReason); `context` is read at each change (the member may have moved to another page).
 */
export async function watchSignOutTriggers(
	wallet: WatchedWallet,
	context: () => { signedInAddress: string | null; onSetupPage: boolean },
	signOut: (reason: string) => void
): Promise<void> {
	let changes = 0;
	wallet.onConnectionChange((next, previous) => {
		changes++;
		const reason = signOutReason(next, previous, context());
		if (reason) signOut(reason);
	});
	await wallet.reconnect();
	// The sign-in page may have reconnected before this listener was there (another account, or
	// another Safe after Safe{Wallet} reloaded the app): then compare once with the connection now.
	if (changes > 0) return;
	const reason = signOutReason(wallet.connection, DISCONNECTED, context());
	if (reason) signOut(reason);
}
