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
	await expect(memberPage.getByRole('status').filter({ hasText: 'your application was received' })).toBeVisible();
	const states = memberPage.getByRole('list', { name: 'Status' });
	await expect(states).toContainText('Waiting for review');
	// Nothing happens on chain before a reviewer approves: those states are not shown yet.
	await expect(states).not.toContainText('Allowlist');
	await expect(states).not.toContainText('Token distribution');
	await expect(memberPage.getByText(/A reviewer will read it/)).toBeVisible();

	const { page: adminPage } = await signedIn(browser, admin);
	await header(adminPage).getByRole('link', { name: 'Admin' }).click();
	await adminPage.getByRole('link', { name: 'Ada from the e2e test' }).click();
	await expect(adminPage.getByRole('heading', { level: 1, name: 'Ada from the e2e test' })).toBeVisible();
	// Final moves ask first, in a dialog.
	await adminPage.getByRole('button', { name: 'Approve' }).click();
	await adminPage
		.getByRole('dialog', { name: 'Approve Ada from the e2e test?' })
		.getByRole('button', { name: 'Confirm' })
		.click();
	await expect(adminPage.getByText('Approved Ada from the e2e test.')).toBeVisible();
	await adminPage.getByLabel('Transaction hash').first().fill(TX_HASH);
	await adminPage.getByRole('button', { name: 'Record added to allowlist' }).click();
	await adminPage
		.getByRole('dialog', { name: 'Record Ada from the e2e test as added to the allowlist?' })
		.getByRole('button', { name: 'Confirm' })
		.click();
	await expect(adminPage.getByRole('status')).toContainText('allowlist', { ignoreCase: true });
	await screenshots(adminPage, testInfo, 'admin');

	await memberPage.reload();
	await expect(states).toContainText('Approved');
	await expect(states).toContainText('Allowlist: added');
	await expect(states).toContainText('Token distribution: waiting to be sent');
	await expect(memberPage.getByText('Approved. Welcome!')).toBeVisible();
	await expect(memberPage.getByText('Allowlist: done: your address is on the allowlist.')).toBeVisible();
	await expect(memberPage.getByText('Token distribution: not done yet.')).toBeVisible();
	const history = memberPage.getByRole('article');
	await expect(history).toContainText('Review: Waiting for review → Approved');
	await expect(history).toContainText('Allowlist: Waiting to be added → Added');
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
	// The member's own count and streak: a first check-in makes one of each.
	await expect(page.getByTestId('checkin-summary')).toHaveText(/1\s+check-in so far\s+·\s+1\s+day in a row/);
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
	// A real page: titled, with the header and a way home.
	expect(adminPage.title).toBe('Page not found · Member portal');
	await expect(page.getByRole('heading', { name: 'Page not found', level: 1 })).toBeVisible();
	await page.getByRole('main').getByRole('link', { name: 'Go to the home page' }).click();
	await expect(page).toHaveURL(`${server.url}/`);
});

test('signing in from a page that asked for it comes back to that page; a foreign next stays on /setup', async ({
	browser
}) => {
	const page = await (await browser.newContext()).newPage();
	await TestWallet.install(page, { account: other, chainId: 137, knownChains: [1, 137] });
	await page.goto(`${server.url}/checkin`);
	await page
		.getByRole('main')
		.getByRole('link', { name: /sign in/i })
		.click();
	await expect(page).toHaveURL(`${server.url}/setup?next=%2Fcheckin`);
	await page.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
	await expect(page).toHaveURL(`${server.url}/checkin`);
	await expect(page.getByRole('heading', { name: 'Check in', level: 1 })).toBeVisible();

	for (const next of ['https://evil.example/', '//evil.example/', '/\\evil.example']) {
		await page.goto(`${server.url}/setup?next=${encodeURIComponent(next)}`);
		await expect(page.getByRole('heading', { name: 'You are signed in' })).toBeVisible();
		await page.waitForTimeout(300);
		expect(new URL(page.url()).origin).toBe(server.url);
		expect(new URL(page.url()).pathname).toBe('/setup');
	}
});

test('signed out, /apply and /checkin answer 401 with a prompt to sign in', async ({ page }, testInfo) => {
	for (const path of ['/apply', '/checkin']) {
		const response = await page.goto(`${server.url}${path}`);
		expect(response?.status()).toBe(401);
		await expect(page.getByRole('main').getByRole('link', { name: /sign in/i })).toHaveAttribute(
			'href',
			`/setup?next=${encodeURIComponent(path)}`
		);
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
	await expect(header(page).locator('.address code')).toBeVisible();
	expect((await serverSession(page)).address).toBe(member.address);

	await wallet.changeAccount(other);
	await expect(header(page).getByRole('link', { name: 'Sign in' })).toBeVisible();
	expect(await serverSession(page)).toEqual({ address: null, isAdmin: false });
	// The page read on the server falls back to its sign-in prompt.
	await expect(page.getByRole('main').getByRole('link', { name: /sign in/i })).toBeVisible();
});
