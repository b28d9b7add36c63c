import { DESKTOP, expect, PHONE, screenshots, startPortal, test } from './fixtures';
import type { RunningServer } from '../helpers/server';

const IPHONE_SAFARI =
	'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

let server: RunningServer;
test.beforeAll(async () => {
	server = await startPortal();
});
test.afterAll(async () => {
	await server?.stop();
});

test.describe('a phone with no wallet in its browser', () => {
	test.use({ viewport: PHONE, userAgent: IPHONE_SAFARI, isMobile: true, hasTouch: true });

	test('/setup says what a wallet is and links each wallet app to this very page', async ({ page }, testInfo) => {
		await page.goto(`${server.url}/setup`);
		await expect(page.getByText('A wallet is an app that holds your account')).toBeVisible();
		const links = page.getByRole('list', { name: 'Wallet apps' }).getByRole('link');
		await expect(links).toHaveText(['Open in MetaMask', 'Open in Coinbase Wallet', 'Open in Trust', 'Open in Rainbow']);
		const here = `${server.url}/setup`;
		const host = new URL(server.url).host;
		const href = (name: string) => page.getByRole('link', { name: `Open in ${name}` }).getAttribute('href');
		expect(await href('MetaMask')).toBe(`https://link.metamask.io/dapp/${host}/setup`);
		expect(new URL((await href('Coinbase Wallet'))!).searchParams.get('cb_url')).toBe(here);
		const trust = new URL((await href('Trust'))!);
		expect(`${trust.origin}${trust.pathname}`).toBe('https://link.trustwallet.com/open_url');
		expect(trust.searchParams.get('url')).toBe(here);
		expect(trust.searchParams.get('coin_id')).toBe('60');
		const rainbow = new URL((await href('Rainbow'))!);
		expect(`${rainbow.origin}${rainbow.pathname}`).toBe('https://rnbwapp.com/dapp');
		expect(rainbow.searchParams.get('url')).toBe(here);
		await expect(page.getByText('Install a wallet extension')).toHaveCount(0);
		await screenshots(page, testInfo, 'setup-phone-no-wallet');
	});
});

test.describe('a tablet whose browser says it is a computer (a touch screen, no mouse)', () => {
	// iPadOS Safari sends a Mac's user agent; the finger is the only pointer.
	test.use({
		viewport: PHONE,
		userAgent:
			'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
		hasTouch: true
	});

	test('/setup offers the wallet apps, not a browser extension', async ({ page }) => {
		await page.goto(`${server.url}/setup`);
		await expect(page.getByRole('list', { name: 'Wallet apps' })).toBeVisible();
		await expect(page.getByText('Install a wallet extension')).toHaveCount(0);
	});
});

test.describe('a desktop browser with no wallet', () => {
	test.use({ viewport: DESKTOP });

	test('keeps the extension advice and offers no app links', async ({ page }) => {
		await page.goto(`${server.url}/setup`);
		await expect(page.getByText('No wallet found in this browser. Install a wallet extension')).toBeVisible();
		await expect(page.getByRole('list', { name: 'Wallet apps' })).toHaveCount(0);
	});
});
