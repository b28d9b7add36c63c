import { type Browser, type Page } from '@playwright/test';
import type { RunningServer } from '../helpers/server';
import { TestWallet } from '../helpers/test-wallet';
import { admin, expect, header, member, other, screenshots, serverSession, startPortal, test, TOKEN } from './fixtures';
import type { PrivateKeyAccount } from 'viem/accounts';

let server: RunningServer;

test.beforeAll(async () => {
	server = await startPortal({ ...TOKEN, ADMIN_ADDRESSES: admin.address });
});
test.afterAll(async () => {
	await server?.stop();
});

/** A browser of its own (own cookies, own wallet) signed in through /setup. */
async function signedIn(browser: Browser, account: PrivateKeyAccount): Promise<{ page: Page; wallet: TestWallet }> {
	const page = await (await browser.newContext()).newPage();
	const wallet = await TestWallet.install(page, { account, chainId: 137, knownChains: [1, 137] });
	await page.goto(`${server.url}/setup`);
	await page.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
	await expect(page.getByRole('heading', { name: 'You are signed in' })).toBeVisible();
	return { page, wallet };
}

const TX_HASH = `0x${'ab'.repeat(32)}`;

test('apply → an admin approves and records the allowlist step with a tx hash → the member sees the new states and the history', async ({
	browser
}, testInfo) => {
	const { page: memberPage } = await signedIn(browser, member);
	await header(memberPage).getByRole('link', { name: 'Apply' }).click();
	await expect(memberPage.getByRole('heading', { name: 'Your application' })).toBeVisible();
	await screenshots(memberPage, testInfo, 'apply-empty');
	await memberPage.getByLabel('Display name').fill('Ada from the e2e test');
	await memberPage.getByLabel('Motivation').fill('I would like to help run the community calls.');
	await memberPage.getByLabel('Contact').fill('@ada:matrix.example');
	await memberPage.getByRole('button', { name: 'Submit application' }).click();
	const states = memberPage.getByRole('list', { name: 'Status' });
	await expect(states).toContainText('Review: pending');
	await expect(states).toContainText('Allowlist: pending');
	await expect(states).toContainText('Token distribution: pending');

	const { page: adminPage } = await signedIn(browser, admin);
	await header(adminPage).getByRole('link', { name: 'Admin' }).click();
	await expect(adminPage.getByRole('heading', { name: 'Applications' })).toBeVisible();
	const card = adminPage.getByRole('article').filter({ hasText: member.address.toLowerCase() });
	await card.getByRole('button', { name: 'Approve' }).click();
	await expect(card.getByRole('list', { name: 'Status' })).toContainText('Review: approved');
	await card.getByLabel('Transaction hash').first().fill(TX_HASH);
	await card.getByRole('button', { name: 'Record added to allowlist' }).click();
	await expect(card.getByRole('list', { name: 'Status' })).toContainText('Allowlist: added');
	await screenshots(adminPage, testInfo, 'admin');

	await memberPage.reload();
	await expect(states).toContainText('Review: approved');
	await expect(states).toContainText('Allowlist: added');
	await expect(states).toContainText('Token distribution: pending');
	await expect(memberPage.getByText('Approved. Welcome!')).toBeVisible();
	const history = memberPage.getByRole('article');
	await expect(history).toContainText('Review: pending → approved');
	await expect(history).toContainText('Allowlist: pending → added');
	await expect(history.getByRole('link', { name: new RegExp(TX_HASH) })).toHaveAttribute(
		'href',
		`https://polygonscan.com/tx/${TX_HASH}`
	);
	await screenshots(memberPage, testInfo, 'apply-approved');
});

test('check-in: a member checks in with a note and sees it in the recent list', async ({ browser }, testInfo) => {
	const { page } = await signedIn(browser, member);
	await header(page).getByRole('link', { name: 'Check in' }).click();
	await expect(page.getByRole('heading', { name: 'Check in', level: 1 })).toBeVisible();
	await page.getByLabel('Note').fill('At the community call today.');
	await page.getByRole('button', { name: 'Check in' }).click();
	await expect(page.getByRole('region', { name: 'Your recent check-ins' })).toContainText(
		'At the community call today.'
	);
	await screenshots(page, testInfo, 'checkin');
});

test('a member opening /admin sees the same 404 page as an unknown path', async ({ browser }, testInfo) => {
	const { page } = await signedIn(browser, member);
	const adminResponse = await page.goto(`${server.url}/admin`);
	expect(adminResponse?.status()).toBe(404);
	const adminPage = { main: await page.getByRole('main').innerText(), title: await page.title() };
	await screenshots(page, testInfo, 'admin-as-member-404');
	const unknownResponse = await page.goto(`${server.url}/no-such-page`);
	expect(unknownResponse?.status()).toBe(404);
	expect({ main: await page.getByRole('main').innerText(), title: await page.title() }).toEqual(adminPage);
	await expect(header(page).getByRole('link', { name: 'Admin' })).toHaveCount(0);
});

test('signed out, /apply and /checkin answer 401 with a prompt to sign in', async ({ page }, testInfo) => {
	for (const path of ['/apply', '/checkin']) {
		const response = await page.goto(`${server.url}${path}`);
		expect(response?.status()).toBe(401);
		await expect(page.getByRole('main').getByRole('link', { name: /sign in/i })).toHaveAttribute('href', '/setup');
		await expect(header(page).getByRole('link', { name: 'Sign in' })).toBeVisible();
	}
	await screenshots(page, testInfo, 'checkin-signed-out');
});

test('on /apply an account change signs out, a chain change does not', async ({ browser }) => {
	const { page, wallet } = await signedIn(browser, member);
	await page.goto(`${server.url}/apply`);
	await expect(page.getByRole('heading', { name: 'Your application' })).toBeVisible();
	await wallet.connectedInPage();

	await wallet.changeChain(1);
	await page.waitForTimeout(1500);
	await expect(header(page).getByTestId('signed-in-address')).toBeVisible();
	expect((await serverSession(page)).address).toBe(member.address);

	await wallet.changeAccount(other);
	await expect(header(page).getByRole('link', { name: 'Sign in' })).toBeVisible();
	expect(await serverSession(page)).toEqual({ address: null, isAdmin: false });
	// The page read on the server falls back to its sign-in prompt.
	await expect(page.getByRole('main').getByRole('link', { name: /sign in/i })).toBeVisible();
});
