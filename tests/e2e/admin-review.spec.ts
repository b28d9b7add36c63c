import { expect, test, type Browser, type Page } from '@playwright/test';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { RunningServer } from '../helpers/server';
import { signIn } from '../helpers/siwe';
import { admin, screenshots, startPortal } from './fixtures';

// The review table and the page per application in Chromium, with and without JavaScript.
let server: RunningServer;

test.beforeAll(async () => {
	server = await startPortal({ ADMIN_ADDRESSES: admin.address });
	for (let i = 0; i < 6; i++) {
		const member = privateKeyToAccount(generatePrivateKey());
		const cookie = await signIn(server.url, member);
		const body = new URLSearchParams({
			displayName: `Reviewee ${i}`,
			motivation: `I maintain a small library and would like to help the community with documentation, number ${i}.`,
			contact: `@reviewee${i}`
		});
		await fetch(`${server.url}/apply`, {
			method: 'POST',
			body,
			headers: { cookie, origin: server.url },
			redirect: 'manual'
		});
	}
});
test.afterAll(async () => {
	await server?.stop();
});

async function pageAs(browser: Browser, account: PrivateKeyAccount, javaScript = true): Promise<Page> {
	const cookie = await signIn(server.url, account);
	const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, javaScriptEnabled: javaScript });
	const [name, value] = cookie.split(/=(.*)/s) as [string, string];
	await context.addCookies([{ name, value, url: server.url }]);
	return context.newPage();
}

test('without JavaScript: the table filters and searches with plain GET forms, and notes post', async ({
	browser
}, testInfo) => {
	const page = await pageAs(browser, admin, false);
	await page.goto(`${server.url}/admin`);
	await expect(page.getByRole('row')).toHaveCount(7);
	await expect(page.getByRole('link', { name: /pending 6/ })).toBeVisible();
	await page.getByLabel('Search').fill('Reviewee 3');
	await page.getByRole('button', { name: 'Show' }).click();
	await expect(page).toHaveURL(/q=Reviewee\+3/);
	await expect(page.getByRole('row')).toHaveCount(2);
	await page.getByRole('link', { name: 'Reviewee 3' }).click();
	await page.getByLabel('Add a note').fill('Checked the library: active.');
	await page.getByRole('button', { name: 'Add note' }).click();
	await expect(page.getByText('Checked the library: active.')).toBeVisible();
	await expect(page.getByRole('heading', { name: 'Reviewer notes (1)' })).toBeVisible();
	// axe runs inside the page, which has no JavaScript here.
	await screenshots(page, testInfo, 'admin-detail-no-js', { axe: false });
});

test('with JavaScript: filters navigate in place; keyboard-only approvals on the page keep their place', async ({
	browser
}, testInfo) => {
	const page = await pageAs(browser, admin);
	await page.goto(`${server.url}/admin`);
	await screenshots(page, testInfo, 'admin-table');
	await page.evaluate(() => ((window as unknown as { marker: number }).marker = 1));
	await page.getByRole('link', { name: /needs info/ }).click();
	await expect(page).toHaveURL(/review=needs_info/);
	await expect(page.getByText('No applications match.')).toBeVisible();
	expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(1);

	// Keyboard only: open the longest waiting, approve it, follow "Next waiting", five times.
	await page.goto(`${server.url}/admin`);
	await page.getByRole('link', { name: 'Reviewee 0' }).focus();
	await page.keyboard.press('Enter');
	for (let i = 0; i < 5; i++) {
		await expect(page.getByRole('heading', { level: 1, name: `Reviewee ${i}` })).toBeVisible();
		const approve = page.getByRole('button', { name: 'Approve' });
		await approve.focus();
		const before = await page.evaluate(() => window.scrollY);
		await page.keyboard.press('Enter');
		const result = page.getByText(`Approved Reviewee ${i}.`);
		await expect(result).toBeVisible();
		await expect(page.getByRole('status').locator('p')).toBeFocused();
		expect(await page.evaluate(() => window.scrollY)).toBeLessThanOrEqual(before + 400);
		if (i === 0) await screenshots(page, testInfo, 'admin-detail');
		await page.keyboard.press('Tab');
		await page.keyboard.press('Enter');
	}
	await expect(page.getByRole('heading', { level: 1, name: 'Reviewee 5' })).toBeVisible();
	await page.goto(`${server.url}/admin?review=approved`);
	await expect(page.getByRole('row')).toHaveCount(6);
});
