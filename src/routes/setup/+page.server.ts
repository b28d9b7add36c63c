import { m } from '$lib/paraglide/messages';
import { textsOf } from '$lib/server/i18n/texts';
import { NO_WALLET_TEXTS, type NoWalletTexts } from '$lib/i18n/texts';
import { GET_A_WALLET } from '$lib/components/sign-in/wallets';
import { walletAppLinks } from '$lib/wallet/deep-links';
import type { PageServerLoad } from './$types';

// /setup's own words before the sign-in loads, in the page's locale only (src/lib/i18n/texts.ts; the root
// layout's `texts` are the header's): the browser's code for the page carries none of the five locales'
// messages. So does the no-wallet help, a computer's and a phone's (their code is loaded only for a browser
// with no wallet); the sign-in, loaded after it, brings its own.
export const load: PageServerLoad = async ({ parent, url }) => {
	const { community } = await parent();
	const noWalletTexts: NoWalletTexts = {
		...textsOf(NO_WALLET_TEXTS),
		getWallet: Object.fromEntries(GET_A_WALLET.map(({ name }) => [name, m.signin_get_wallet({ wallet: name })])),
		openIn: Object.fromEntries(walletAppLinks(url).map(({ name }) => [name, m.signin_open_in({ wallet: name })]))
	};
	return {
		noWalletTexts,
		pageTexts: {
			...textsOf(['common_sign_in', 'setup_loading']),
			signInWithWalletConnect: m.common_sign_in_with({ wallet: 'WalletConnect' }),
			title: m.setup_title({ name: community.name }),
			welcome: m.setup_welcome({ name: community.name })
		}
	};
};
