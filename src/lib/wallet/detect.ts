/**
 * Whether this browser has a wallet, found without loading the wallet library (wagmi, viem): /setup
 * loads that library only when it will be used (docs/sign-in.md "Browser").
 */

/** How long wallets may take to answer EIP-6963's request; extensions answer at once. */
export const WALLET_ANNOUNCE_WAIT_MS = 500;

/** wagmi's record of the last wallet used (`createStorage`'s default key prefix): a session to restore. */
const RECENT_CONNECTOR_KEY = 'wagmi.recentConnectorId';

/** What a wallet leaves where a page can see it at once; true means load the wallet library. */
export function walletHint(win: Window): boolean {
	if ((win as { ethereum?: unknown }).ethereum != null) return true;
	// A Safe App runs in Safe{Wallet}'s frame; its connector lives in the wallet library.
	if (win.parent !== win) return true;
	try {
		return win.localStorage.getItem(RECENT_CONNECTOR_KEY) !== null;
	} catch {
		// Storage refused (a third-party frame, a strict privacy mode): no session to restore.
		return false;
	}
}

/**
 * True when there is a wallet: a hint (walletHint), or an EIP-6963 announcement within `waitMs`
 * of asking for one, or window.ethereum injected by then.
 */
export function detectWallet(win: Window, waitMs = WALLET_ANNOUNCE_WAIT_MS): Promise<boolean> {
	if (walletHint(win)) return Promise.resolve(true);
	return new Promise((resolve) => {
		const finish = (found: boolean) => {
			win.removeEventListener('eip6963:announceProvider', onAnnounce);
			clearTimeout(timer);
			resolve(found);
		};
		const onAnnounce = () => finish(true);
		win.addEventListener('eip6963:announceProvider', onAnnounce);
		const timer = setTimeout(() => finish(walletHint(win)), waitMs);
		win.dispatchEvent(new Event('eip6963:requestProvider'));
	});
}
