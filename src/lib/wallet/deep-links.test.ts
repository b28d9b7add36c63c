import { describe, expect, it } from 'vitest';
import { isPhone, walletAppLinks } from './deep-links';

describe('walletAppLinks', () => {
	const page = new URL('https://portal.example:8443/setup?from=home#top');
	const byName = Object.fromEntries(walletAppLinks(page).map((l) => [l.name, l.href]));
	const url = 'https://portal.example:8443/setup?from=home';

	it('opens this page (without its fragment) in each app, in the format the app documents', () => {
		expect(byName).toEqual({
			MetaMask: 'https://link.metamask.io/dapp/portal.example:8443/setup?from=home',
			'Coinbase Wallet': `https://go.cb-w.com/dapp?cb_url=${encodeURIComponent(url)}`,
			Trust: `https://link.trustwallet.com/open_url?coin_id=60&url=${encodeURIComponent(url)}`,
			Rainbow: `https://rnbwapp.com/dapp?url=${encodeURIComponent(url)}`
		});
	});

	it('each encoded link decodes back to exactly this page', () => {
		for (const name of ['Coinbase Wallet', 'Trust', 'Rainbow']) {
			const params = new URL(byName[name]!).searchParams;
			expect(params.get('cb_url') ?? params.get('url')).toBe(url);
		}
	});
});

describe('isPhone', () => {
	it.each([
		['Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148', true],
		['Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/124.0 Mobile Safari/537.36', true],
		['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/124.0 Safari/537.36', false]
	])('%s', (userAgent, phone) => {
		expect(isPhone({ userAgent })).toBe(phone);
	});

	it('trusts the client hint when the browser gives one', () => {
		expect(isPhone({ userAgent: 'Mozilla/5.0 (X11; Linux x86_64)', userAgentData: { mobile: true } })).toBe(true);
	});

	it('an iPad whose Safari says it is a Mac, and a touch-only screen, are phones; a Mac or a laptop with a touch screen is not', () => {
		const mac = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 Version/17.5 Safari/605.1.15';
		expect(isPhone({ userAgent: mac, maxTouchPoints: 5 })).toBe(true);
		expect(isPhone({ userAgent: mac, maxTouchPoints: 0 })).toBe(false);
		const linux = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/124.0 Safari/537.36';
		const touchOnly = (q: string) => q === '(pointer: coarse)';
		const touchAndTrackpad = (q: string) => q === '(pointer: coarse)' || q === '(any-pointer: fine)';
		expect(isPhone({ userAgent: linux }, touchOnly)).toBe(true);
		expect(isPhone({ userAgent: linux }, touchAndTrackpad)).toBe(false);
		expect(isPhone({ userAgent: linux }, () => false)).toBe(false);
	});
});
