import type { RunningServer } from '../helpers/server';
import { TestWallet } from '../helpers/test-wallet';
import { admin, expect, header, member, other, screenshots, serverSession, startPortal, test, TOKEN } from './fixtures';

let server: RunningServer;

test.beforeAll(async () => {
	server = await startPortal({ ...TOKEN, ADMIN_ADDRESSES: admin.address });
});
test.afterAll(async () => {
	await server?.stop();
});
async function signInOnSetup(page: import('@playwright/test').Page, wallet: TestWallet) {
	await page.goto(`${server.url}/setup`);
	await page.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
	await expect(page.getByRole('heading', { name: 'You are signed in' })).toBeVisible();
	await expect(header(page).getByText(`${wallet.account.address.slice(0, 6)}…`)).toBeVisible();
}

test('sign-in on /setup switches the wallet to Polygon (adding it), signs a SIWE message and offers the token', async ({
	page
}, testInfo) => {
	const wallet = await TestWallet.install(page, { account: member, chainId: 1, knownChains: [1] });
	await page.goto(`${server.url}/`);
	await expect(header(page).getByRole('link', { name: 'Sign in' })).toBeVisible();
	await screenshots(page, testInfo, 'home-signed-out');
	// The home page of an anonymous visitor never asks the wallet anything.
	expect(wallet.calls).toEqual([]);
	await header(page).getByRole('link', { name: 'Sign in' }).click();
	await expect(page).toHaveURL(/\/setup$/);
	await screenshots(page, testInfo, 'setup-signed-out');

	await page.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
	await expect(page.getByRole('heading', { name: 'You are signed in' })).toBeVisible();

	// The wallet lacked 137: wagmi answered the 4902 with wallet_addEthereumChain for Polygon.
	const switches = wallet.calls.filter((c) => c.method === 'wallet_switchEthereumChain');
	expect(switches[0]?.params).toEqual([{ chainId: '0x89' }]);
	expect(wallet.addedChains).toEqual([expect.objectContaining({ chainId: '0x89', chainName: 'Polygon' })]);
	expect(wallet.chainId).toBe(137);

	// The message: this host and origin, chain 137, expiry ten minutes after issue.
	const message = wallet.signedMessages.at(-1)!;
	const url = new URL(server.url);
	expect(message.startsWith(`${url.host} wants you to sign in with your Ethereum account:\n${member.address}\n`)).toBe(
		true
	);
	expect(message).toContain(`\nURI: ${url.origin}\n`);
	expect(message).toContain('\nChain ID: 137\n');
	const issued = Date.parse(/Issued At: (\S+)/.exec(message)![1]!);
	const expires = Date.parse(/Expiration Time: (\S+)/.exec(message)![1]!);
	expect(expires - issued).toBe(10 * 60_000);

	expect(await serverSession(page)).toEqual({ address: member.address, isAdmin: false });
	await expect(header(page).locator('.address code')).toHaveText(
		`${member.address.slice(0, 6)}…${member.address.slice(-4)}`
	);
	await expect(header(page).getByRole('link', { name: 'Admin' })).toHaveCount(0);

	await page.getByRole('button', { name: `Add ${TOKEN.PUBLIC_TOKEN_SYMBOL} to your wallet` }).click();
	await expect(page.getByText(`${TOKEN.PUBLIC_TOKEN_SYMBOL} was added to your wallet.`)).toBeVisible();
	expect(wallet.watchedAssets).toEqual([
		{
			type: 'ERC20',
			options: {
				address: TOKEN.PUBLIC_TOKEN_ADDRESS,
				symbol: TOKEN.PUBLIC_TOKEN_SYMBOL,
				decimals: Number(TOKEN.PUBLIC_TOKEN_DECIMALS),
				image: TOKEN.PUBLIC_TOKEN_IMAGE
			}
		}
	]);
	await screenshots(page, testInfo, 'setup-signed-in');

	// Reloading keeps the session (cookie) and reconnects the wallet without asking again.
	const requests = wallet.calls.filter((c) => c.method === 'wallet_requestPermissions').length;
	await page.reload();
	await expect(page.getByRole('heading', { name: 'You are signed in' })).toBeVisible();
	await expect(page.getByRole('button', { name: `Add ${TOKEN.PUBLIC_TOKEN_SYMBOL} to your wallet` })).toBeVisible();
	expect(wallet.calls.filter((c) => c.method === 'wallet_requestPermissions').length).toBe(requests);

	await page.goto(`${server.url}/`);
	await expect(header(page).locator('.address code')).toBeVisible();
	await screenshots(page, testInfo, 'home-signed-in');
});

test('the header sign-out control calls logout on every page', async ({ page }) => {
	const wallet = await TestWallet.install(page, { account: member, chainId: 137, knownChains: [1, 137] });
	await signInOnSetup(page, wallet);
	await page.goto(`${server.url}/`);
	await header(page).getByRole('button', { name: 'Sign out' }).click();
	await expect(header(page).getByRole('link', { name: 'Sign in' })).toBeVisible();
	expect(await serverSession(page)).toEqual({ address: null, isAdmin: false });
});

test('an admin sees the /admin link in the header; the link is only a convenience', async ({ page }) => {
	const wallet = await TestWallet.install(page, { account: admin, chainId: 137, knownChains: [137] });
	await signInOnSetup(page, wallet);
	// No switch was needed: the wallet was already on Polygon.
	expect(wallet.calls.some((c) => c.method === 'wallet_switchEthereumChain')).toBe(false);
	await expect(header(page).getByRole('link', { name: 'Admin' })).toHaveAttribute('href', '/admin');
	expect(await serverSession(page)).toEqual({ address: admin.address, isAdmin: true });
});

test('an account change in the wallet signs out on a page other than /setup', async ({ page }) => {
	const wallet = await TestWallet.install(page, { account: member, chainId: 137, knownChains: [1, 137] });
	await signInOnSetup(page, wallet);
	await page.goto(`${server.url}/`);
	await expect(header(page).locator('.address code')).toBeVisible();
	await wallet.connectedInPage();

	await wallet.changeAccount(other);
	await expect(header(page).getByRole('link', { name: 'Sign in' })).toBeVisible();
	await expect(page.getByRole('status')).toContainText('active account in your wallet changed');
	expect(await serverSession(page)).toEqual({ address: null, isAdmin: false });
});

test('a chain change signs out on /setup but not on other pages', async ({ page }) => {
	const wallet = await TestWallet.install(page, { account: member, chainId: 137, knownChains: [1, 137] });
	await signInOnSetup(page, wallet);

	// Elsewhere a network change is not a reason to sign out.
	await page.goto(`${server.url}/`);
	await expect(header(page).locator('.address code')).toBeVisible();
	await wallet.connectedInPage();
	await wallet.changeChain(1);
	// Give the page the same chance it gets on /setup to react, then check nothing happened.
	await page.waitForTimeout(1500);
	await expect(header(page).locator('.address code')).toBeVisible();
	expect((await serverSession(page)).address).toBe(member.address);

	await wallet.changeChain(137);
	await page.goto(`${server.url}/setup`);
	await expect(page.getByRole('heading', { name: 'You are signed in' })).toBeVisible();
	await wallet.connectedInPage();
	await wallet.changeChain(1);
	await expect(header(page).getByRole('link', { name: 'Sign in' })).toBeVisible();
	await expect(page.getByRole('status').first()).toContainText('left Polygon');
	expect(await serverSession(page)).toEqual({ address: null, isAdmin: false });
	// Back to the sign-in prompt, which will switch the wallet again.
	await expect(page.getByRole('button', { name: /^Sign in/ })).toBeVisible();
});

for (const step of ['nonce', 'verify'] as const) {
	test(`a 429 from /api/auth/${step} shows the wait message and no retry control`, async ({ page }, testInfo) => {
		const wallet = await TestWallet.install(page, { account: member, chainId: 137, knownChains: [137] });
		await page.route(`**/api/auth/${step}`, (route) =>
			route.fulfill({ status: 429, contentType: 'text/plain', body: 'Too Many Requests' })
		);
		await page.goto(`${server.url}/setup`);
		await page.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
		await expect(page.getByRole('alert')).toContainText(
			'Traffic is high right now. Please wait a minute and try again.'
		);
		await expect(page.getByRole('main').getByRole('button')).toHaveCount(0);
		expect(wallet.signedMessages.length).toBe(step === 'nonce' ? 0 : 1);
		expect(await serverSession(page)).toEqual({ address: null, isAdmin: false });
		if (step === 'verify') await screenshots(page, testInfo, 'setup-rate-limited');
	});
}

test('a refused signature shows what went wrong and the sign-again prompt, which then works', async ({
	page
}, testInfo) => {
	const wallet = await TestWallet.install(page, { account: member, chainId: 137, knownChains: [137] });
	wallet.refuseSignatures = true;
	await page.goto(`${server.url}/setup`);
	await page.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
	await expect(page.getByRole('alert')).toContainText('You refused the signature request');
	const again = page.getByRole('button', { name: 'Sign again' });
	await expect(again).toBeVisible();
	await screenshots(page, testInfo, 'setup-signature-refused');

	wallet.refuseSignatures = false;
	// Focus lands on the prompt, so a keyboard user signs again with one key.
	await expect(again).toBeFocused();
	await page.keyboard.press('Enter');
	await expect(page.getByRole('heading', { name: 'You are signed in' })).toBeVisible();
	expect((await serverSession(page)).address).toBe(member.address);
});

test('a server refusal says what went wrong and offers to sign again', async ({ page }) => {
	await TestWallet.install(page, { account: member, chainId: 137, knownChains: [137] });
	await page.route('**/api/auth/verify', (route) =>
		route.fulfill({
			status: 401,
			contentType: 'application/json',
			body: JSON.stringify({ error: { code: 'expired', message: 'The message has expired.' } })
		})
	);
	await page.goto(`${server.url}/setup`);
	await page.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
	await expect(page.getByRole('alert')).toContainText('expired');
	await expect(page.getByRole('button', { name: 'Sign again' })).toBeVisible();
});

test('declining the network switch says the network is wrong and offers to try again', async ({ page }) => {
	const wallet = await TestWallet.install(page, { account: member, chainId: 1, knownChains: [1, 137] });
	await page.goto(`${server.url}/setup`);
	const original = wallet.handle.bind(wallet);
	wallet.handle = async (call) =>
		call.method === 'wallet_switchEthereumChain'
			? { error: { code: 4001, message: 'User rejected the request.' } }
			: original(call);
	await page.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
	await expect(page.getByRole('alert')).toContainText('Wrong network');
	await expect(page.getByRole('button', { name: 'Try again' })).toBeVisible();
	expect(wallet.signedMessages).toEqual([]);
});

test('the sign-in page is usable with the keyboard alone', async ({ page }) => {
	await TestWallet.install(page, { account: member, chainId: 137, knownChains: [137] });
	await page.goto(`${server.url}/setup`);
	await expect(page.getByRole('button', { name: 'Sign in with Test Wallet' })).toBeVisible();
	const reached: string[] = [];
	for (let i = 0; i < 8; i++) {
		await page.keyboard.press('Tab');
		const focused = await page.evaluate(() => {
			const el = document.activeElement as HTMLElement | null;
			if (!el) return null;
			const style = getComputedStyle(el);
			return {
				text: el.textContent?.trim() ?? '',
				outline: style.outlineStyle !== 'none' && style.outlineWidth !== '0px'
			};
		});
		if (!focused) continue;
		expect(focused.outline, `focus is visible on "${focused.text}"`).toBe(true);
		reached.push(focused.text);
		if (focused.text === 'Sign in with Test Wallet') break;
	}
	expect(reached).toContain('Sign in with Test Wallet');
	await page.keyboard.press('Enter');
	await expect(page.getByRole('heading', { name: 'You are signed in' })).toBeFocused();
});
