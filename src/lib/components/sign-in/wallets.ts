/** The wallet extensions a computer's browser with no wallet is pointed to (NoWallet.svelte): their own download pages. */
export const GET_A_WALLET = [
	{ name: 'MetaMask', href: 'https://metamask.io/download/' },
	{ name: 'Rabby', href: 'https://rabby.io/' }
] as const;
