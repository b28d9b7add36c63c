/**
 * Links that open a page in a wallet app's own browser, for phones with no wallet in the browser
 * (docs/sign-in.md "Wallets beyond the browser extension"). Each follows its wallet's documented format.
 */

export interface WalletAppLink {
	name: string;
	href: string;
}

/** The wallet apps offered on a phone, with the link that opens `page` (an absolute http(s) URL) in each. */
export function walletAppLinks(page: URL): WalletAppLink[] {
	const url = page.href.replace(/#.*$/, '');
	const encoded = encodeURIComponent(url);
	return [
		// MetaMask takes the address without its scheme, unencoded, as the path.
		{ name: 'MetaMask', href: `https://link.metamask.io/dapp/${url.replace(/^https?:\/\//, '')}` },
		{ name: 'Coinbase Wallet', href: `https://go.cb-w.com/dapp?cb_url=${encoded}` },
		// coin_id 60: Trust's EVM browser; the sign-in then switches the wallet to Polygon.
		{ name: 'Trust', href: `https://link.trustwallet.com/open_url?coin_id=60&url=${encoded}` },
		{ name: 'Rainbow', href: `https://rnbwapp.com/dapp?url=${encoded}` }
	];
}

// In a module of its own: /setup asks it before it loads the help that uses these links.
export { isPhone } from './phone';
