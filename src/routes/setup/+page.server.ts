import { m } from '$lib/paraglide/messages';
import { textsOf } from '$lib/server/i18n/texts';
import type { PageServerLoad } from './$types';

// /setup's own words before the sign-in loads, in the page's locale only (src/lib/i18n/texts.ts; the root
// layout's `texts` are the header's): the browser's code for the page carries none of the five locales'
// messages. The sign-in and the no-wallet help, loaded after it, bring their own.
export const load: PageServerLoad = async ({ parent }) => {
	const { community } = await parent();
	return {
		pageTexts: {
			...textsOf(['common_sign_in', 'setup_loading']),
			signInWithWalletConnect: m.common_sign_in_with({ wallet: 'WalletConnect' }),
			title: m.setup_title({ name: community.name }),
			welcome: m.setup_welcome({ name: community.name })
		}
	};
};
