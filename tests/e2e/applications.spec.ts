import { type Page } from '@playwright/test';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startServer, type RunningServer } from '../helpers/server';
import { testAccount } from '../helpers/siwe';
import { expect, pageAs, test } from './fixtures';

// The built server in real Chromium, with JavaScript: the same forms, enhanced with use:enhance.

const admin = testAccount('admin');
const PHONE = { width: 375, height: 740 };
const DESKTOP = { width: 1280, height: 900 };

let server: RunningServer;

test.beforeAll(async () => {
	server = await startServer({ env: { ADMIN_ADDRESSES: admin.address } });
});
test.afterAll(async () => {
	await server?.stop();
});

/** True when the page needs no sideways scrolling. */
const fitsWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

test('a member applies at phone width and an admin approves and records the allowlist step, enhanced', async ({
	browser
}) => {
	const member = privateKeyToAccount(generatePrivateKey());
	const phone = await pageAs(browser, server, member, { viewport: PHONE });
	await phone.goto(`${server.url}/apply`);
	await expect(phone.getByRole('heading', { name: 'Apply', exact: true })).toBeVisible();
	expect(await fitsWidth(phone)).toBe(true);

	await phone.getByLabel('Display name').fill('Hedy Lamarr');
	await phone.getByLabel('Motivation').fill('Frequency hopping, and the docs.');
	await phone.getByLabel('Contact').fill('@hedy');
	await phone.getByRole('button', { name: 'Submit application' }).click();
	await expect(phone.getByRole('heading', { name: 'Hedy Lamarr' })).toBeVisible();
	await expect(phone.getByText('Waiting for review', { exact: true })).toBeVisible();
	await expect(phone.getByRole('button', { name: 'Submit application' })).toHaveCount(0);
	expect(await fitsWidth(phone)).toBe(true);

	const desk = await pageAs(browser, server, admin, { viewport: DESKTOP });
	await desk.goto(`${server.url}/admin?q=${member.address}`);
	await desk.getByRole('link', { name: 'Hedy Lamarr' }).click();
	const card = desk.getByRole('main');
	await expect(card.getByText(member.address.toLowerCase())).toBeVisible();
	// Enhanced: the page is updated in place, not reloaded; focus goes to the result.
	await desk.evaluate(() => ((window as unknown as { marker: number }).marker = 1));
	await card.getByRole('button', { name: 'Approve' }).click();
	// A final move asks first: with JavaScript in a dialog.
	const confirm = () => desk.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
	await confirm();
	await expect(card.getByText('Approved', { exact: true }).first()).toBeVisible();
	await expect(desk.getByText('Approved Hedy Lamarr.')).toBeVisible();
	await expect(desk.getByRole('status').locator('p')).toBeFocused();
	expect(await desk.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(1);
	await expect(card.getByRole('button', { name: 'Approve' })).toHaveCount(0);

	const hash = `0x${'ab'.repeat(32)}`;
	const allowlist = card.getByRole('group', { name: /^Allowlist: waiting to be added$/i });
	await allowlist.getByLabel('Transaction hash').fill(hash);
	await allowlist.getByRole('button', { name: 'Record added to allowlist' }).click();
	await confirm();
	await expect(card.getByText(/Allowlist: added/i).first()).toBeVisible();
	await expect(card.getByText('History (3)')).toBeVisible();
	await expect(card.getByRole('link', { name: new RegExp(hash) })).toHaveAttribute(
		'href',
		`https://polygonscan.com/tx/${hash}`
	);

	// A refusal the browser can make: on the field, before anything is sent, what was typed kept.
	const distribution = card.getByRole('group', { name: /^Token distribution: waiting to be sent$/i });
	await distribution.getByLabel('Transaction hash').fill(`0x${'cd'.repeat(32)}`);
	await distribution.getByRole('button', { name: 'Record failed token distribution' }).click();
	await expect(distribution.getByLabel('Reason')).toBeFocused();
	expect(await distribution.getByLabel('Reason').evaluate((el: HTMLTextAreaElement) => el.validationMessage)).toBe(
		'A reason is needed to move token distribution to failed.'
	);
	await expect(distribution.getByLabel('Transaction hash')).toHaveValue(`0x${'cd'.repeat(32)}`);
	await expect(card.getByText('History (3)')).toBeVisible();

	await phone.reload();
	await expect(phone.getByText('Approved', { exact: true }).first()).toBeVisible();
	await expect(phone.getByText('Allowlist: added')).toBeVisible();

	const adminPhone = await pageAs(browser, server, admin, { viewport: PHONE });
	await adminPhone.goto(`${server.url}/admin`);
	expect(await fitsWidth(adminPhone)).toBe(true);
	// Keyboard users see where they are.
	await adminPhone.getByLabel('Order').focus();
	await adminPhone.keyboard.press('Tab');
	await expect(adminPhone.getByRole('button', { name: 'Show' })).toBeFocused();
	const outline = await adminPhone.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
	expect(outline).not.toBe('none');
});

test('without JavaScript, a submitted application is thanked for as the enhanced form thanks it', async ({
	browser
}) => {
	for (const scripts of ['off', 'on'] as const) {
		const page = await pageAs(browser, server, privateKeyToAccount(generatePrivateKey()), { viewport: PHONE, scripts });
		await page.goto(`${server.url}/apply`);
		await page.getByLabel('Display name').fill(`Ida ${scripts}`);
		await page.getByLabel('Motivation').fill('Sent by a plain form post, then by the enhanced form.');
		await page.getByRole('button', { name: 'Submit application' }).click();
		await expect(page.getByRole('heading', { name: `Ida ${scripts}` })).toBeVisible();
		await expect(
			page.getByRole('status').filter({ hasText: 'Thank you: your application was received.' })
		).toBeVisible();
		// Said once, not by both the page and the form.
		await expect(page.getByText('Thank you: your application was received.')).toHaveCount(1);
	}
});

test('a member checks in with a note, enhanced, and sees it in the recent list', async ({ browser }) => {
	const page = await pageAs(browser, server, privateKeyToAccount(generatePrivateKey()), { viewport: PHONE });
	await page.goto(`${server.url}/checkin`);
	await page.getByLabel('Note').fill('Hello from the phone');
	await page.getByRole('button', { name: 'Check in' }).click();
	await expect(page.getByRole('listitem').filter({ hasText: 'Hello from the phone' })).toBeVisible();
	await expect(page.getByLabel('Note')).toHaveValue('');
	expect(await fitsWidth(page)).toBe(true);
});

test('signed out, /apply shows the sign-in prompt linking /setup', async ({ page }) => {
	const response = await page.goto(`${server.url}/apply`);
	expect(response?.status()).toBe(401);
	await expect(page.getByRole('link', { name: 'Sign in with your wallet' })).toHaveAttribute(
		'href',
		'/setup?next=%2Fapply'
	);
});
