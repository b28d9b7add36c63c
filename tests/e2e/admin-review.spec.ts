import type { Page } from '@playwright/test';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { RunningServer } from '../helpers/server';
import { signIn } from '../helpers/siwe';
import { admin, expect, pageAs, screenshots, startPortal, test } from './fixtures';

// The review table, the page per application and bulk decisions in Chromium, with and without
// JavaScript. Each test works on applicants of its own, found by the table's search.
let server: RunningServer;

const GROUPS = { Reviewee: 6, Nojsbulk: 3, Dialogbulk: 3, Keyboardee: 5 } as const;

test.beforeAll(async () => {
	server = await startPortal({ ADMIN_ADDRESSES: admin.address });
	for (const [prefix, count] of Object.entries(GROUPS)) {
		for (let i = 0; i < count; i++) {
			const member = privateKeyToAccount(generatePrivateKey());
			const cookie = await signIn(server.url, member);
			const body = new URLSearchParams({
				displayName: `${prefix} ${i}`,
				motivation: `I maintain a small library and would like to help the community with documentation, number ${i}.`,
				contact: `@${prefix.toLowerCase()}${i}`
			});
			await fetch(`${server.url}/apply`, {
				method: 'POST',
				body,
				headers: { cookie, origin: server.url },
				redirect: 'manual'
			});
		}
	}
});
test.afterAll(async () => {
	await server?.stop();
});

test('without JavaScript: the table filters and searches with plain GET forms, and notes post', async ({
	browser
}, testInfo) => {
	const page = await pageAs(browser, server, admin, { scripts: 'off' });
	await page.goto(`${server.url}/admin?q=Reviewee`);
	await expect(page.getByRole('row')).toHaveCount(7);
	await expect(page.getByRole('link', { name: /Waiting for review 6/ })).toBeVisible();
	await page.getByLabel('Search').fill('Reviewee 3');
	await page.getByRole('button', { name: 'Show' }).click();
	await expect(page).toHaveURL(/q=Reviewee\+3/);
	await expect(page.getByRole('row')).toHaveCount(2);
	await page.getByRole('link', { name: 'Reviewee 3' }).click();
	await page.getByLabel('Add a note').fill('Checked the library: active.');
	await page.getByRole('button', { name: 'Add note' }).click();
	await expect(page.getByText('Checked the library: active.')).toBeVisible();
	await expect(page.getByRole('heading', { name: 'Reviewer notes (1)' })).toBeVisible();
	await screenshots(page, testInfo, 'admin-detail-no-js', { axe: false });
	// The same page with the portal's scripts blocked, so that axe (which runs in the page) can check it.
	const checked = await pageAs(browser, server, admin, { scripts: 'blocked' });
	await checked.goto(page.url());
	await expect(checked.getByRole('heading', { name: 'Reviewer notes (1)' })).toBeVisible();
	await screenshots(checked, testInfo, 'admin-detail-no-js-axe');
});

/** Ticks the rows of `names`, chooses the move and applies it: the same steps with or without JavaScript. */
async function bulkMove(page: Page, names: string[], move: string) {
	for (const name of names) await page.getByRole('checkbox', { name: `Select ${name}` }).check();
	await page.getByLabel('Field').selectOption('review');
	await page.getByLabel('Move', { exact: true }).selectOption({ label: move });
	await page.getByRole('button', { name: 'Apply to selected' }).click();
}

for (const scripts of ['off', 'blocked'] as const) {
	test(`without JavaScript (${scripts}): a bulk approval shows a confirm step, and only Confirm applies it`, async ({
		browser
	}, testInfo) => {
		const page = await pageAs(browser, server, admin, { scripts });
		const prefix = 'Nojsbulk';
		await page.goto(`${server.url}/admin?q=${prefix}`);
		await expect(page.getByRole('row')).toHaveCount(4);
		// Blocked scripts: the second run approves the one the first run left.
		const names = scripts === 'off' ? [`${prefix} 0`, `${prefix} 1`] : [`${prefix} 2`];
		await bulkMove(page, names, 'Approve');
		const step = page.getByRole('region', { name: `Approve ${names.length} application` });
		await expect(step).toBeVisible();
		for (const name of names) await expect(step.getByRole('listitem').filter({ hasText: name })).toBeVisible();
		await expect(step).toContainText('This is final: it cannot be undone.');
		// Nothing has moved yet.
		await expect(page.getByRole('link', { name: /^Approved \d/ })).toContainText(scripts === 'off' ? '0' : '2');
		if (scripts === 'blocked') await screenshots(page, testInfo, 'admin-bulk-confirm-no-js');
		await step.getByRole('button', { name: /^Confirm/ }).click();
		await expect(page).toHaveURL(new RegExp(`q=${prefix}&done=review.approved&count=${names.length}`));
		await expect(page.getByRole('status')).toHaveText(
			`Approved ${names.length} application${names.length === 1 ? '' : 's'}.`
		);
		await expect(page.getByRole('link', { name: /^Approved \d/ })).toContainText(scripts === 'off' ? '2' : '3');
		if (scripts === 'blocked') await screenshots(page, testInfo, 'admin-table-no-js');
	});
}

test('with JavaScript: a bulk approval asks in a dialog, Cancel changes nothing, Confirm applies it in place', async ({
	browser
}, testInfo) => {
	const page = await pageAs(browser, server, admin);
	const prefix = 'Dialogbulk';
	await page.goto(`${server.url}/admin?q=${prefix}`);
	await page.evaluate(() => ((window as unknown as { marker: number }).marker = 1));
	await bulkMove(page, [`${prefix} 0`, `${prefix} 2`], 'Approve');
	const dialog = page.getByRole('dialog', { name: 'Approve 2 applications?' });
	await expect(dialog).toBeVisible();
	await expect(dialog.getByRole('listitem')).toHaveText([`${prefix} 0`, `${prefix} 2`]);
	await screenshots(page, testInfo, 'admin-bulk-dialog');
	// Escape cancels: the dialog closes, focus returns to the button, nothing moved.
	await page.keyboard.press('Escape');
	await expect(dialog).toBeHidden();
	await expect(page.getByRole('button', { name: 'Apply to selected' })).toBeFocused();
	await expect(page.getByRole('link', { name: /^Approved \d/ })).toContainText('0');

	await page.getByRole('button', { name: 'Apply to selected' }).click();
	await dialog.getByRole('button', { name: 'Confirm' }).click();
	const status = page.getByRole('status').locator('p');
	await expect(status).toHaveText('Approved 2 applications.');
	await expect(status).toBeFocused();
	await expect(page).toHaveURL(new RegExp(`q=${prefix}&done=review.approved&count=2`));
	await expect(page.getByRole('link', { name: /^Approved \d/ })).toContainText('2');
	// No reload: the page's own state survived; the selection was cleared.
	expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(1);
	await expect(page.getByRole('checkbox', { name: `Select ${prefix} 1` })).not.toBeChecked();
	await expect(page.getByText('0 selected')).toBeVisible();
});

test('keyboard only: an admin selects five applications and approves them in one move, without the page jumping', async ({
	browser
}) => {
	const page = await pageAs(browser, server, admin);
	await page.setViewportSize({ width: 1280, height: 500 });
	await page.goto(`${server.url}/admin?q=Keyboardee`);
	await expect(page.getByRole('row')).toHaveCount(6);
	await page.getByRole('checkbox', { name: 'Select all 5 on this page' }).focus();
	await page.keyboard.press('Space');
	await expect(page.getByText('5 selected')).toBeVisible();
	// Field (Review), Move (Approve is chosen), then the button.
	await page.keyboard.press('Tab');
	await expect(page.getByLabel('Field')).toBeFocused();
	await page.keyboard.press('Tab');
	await expect(page.getByLabel('Move', { exact: true })).toBeFocused();
	await expect(page.getByLabel('Move', { exact: true })).toHaveValue('approved');
	await page.keyboard.press('Tab');
	await expect(page.getByRole('button', { name: 'Apply to selected' })).toBeFocused();
	const before = await page.evaluate(() => window.scrollY);
	await page.keyboard.press('Enter');
	const dialog = page.getByRole('dialog', { name: 'Approve 5 applications?' });
	// The dialog opens on Cancel (a stray Enter cancels); Confirm is one deliberate Tab away.
	await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
	await page.keyboard.press('Tab');
	await expect(dialog.getByRole('button', { name: 'Confirm' })).toBeFocused();
	await page.keyboard.press('Enter');
	const status = page.getByRole('status').locator('p');
	await expect(status).toHaveText('Approved 5 applications.');
	await expect(status).toBeFocused();
	expect(Math.abs((await page.evaluate(() => window.scrollY)) - before)).toBeLessThanOrEqual(200);
	await expect(page.getByRole('link', { name: /^Approved \d/ })).toContainText('5');
	await expect(page.getByRole('link', { name: /^Waiting for review \d/ })).toContainText('0');
});

test('with JavaScript: filters navigate in place; keyboard-only approvals on the page keep their place', async ({
	browser
}, testInfo) => {
	const page = await pageAs(browser, server, admin);
	await page.goto(`${server.url}/admin?q=Reviewee`);
	await screenshots(page, testInfo, 'admin-table');
	await page.evaluate(() => ((window as unknown as { marker: number }).marker = 1));
	await page.getByRole('link', { name: /More information asked/ }).click();
	await expect(page).toHaveURL(/review=needs_info/);
	await expect(page.getByText('No applications match.')).toBeVisible();
	expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(1);

	// Keyboard only: open the longest waiting, approve it (confirming in the dialog), follow "Next waiting", five times.
	await page.goto(`${server.url}/admin?q=Reviewee`);
	await page.getByRole('link', { name: 'Reviewee 0' }).focus();
	await page.keyboard.press('Enter');
	for (let i = 0; i < 5; i++) {
		await expect(page.getByRole('heading', { level: 1, name: `Reviewee ${i}` })).toBeVisible();
		const approve = page.getByRole('button', { name: 'Approve' });
		await approve.focus();
		const before = await page.evaluate(() => window.scrollY);
		await page.keyboard.press('Enter');
		const dialog = page.getByRole('dialog', { name: `Approve Reviewee ${i}?` });
		await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
		if (i === 0) await screenshots(page, testInfo, 'admin-detail-dialog');
		await page.keyboard.press('Tab');
		await page.keyboard.press('Enter');
		const result = page.getByText(`Approved Reviewee ${i}.`);
		await expect(result).toBeVisible();
		await expect(page.getByRole('status').locator('p')).toBeFocused();
		expect(await page.evaluate(() => window.scrollY)).toBeLessThanOrEqual(before + 400);
		if (i === 0) await screenshots(page, testInfo, 'admin-detail');
		await page.keyboard.press('Tab');
		await page.keyboard.press('Enter');
	}
	await expect(page.getByRole('heading', { level: 1, name: /^(Reviewee 5|\w+ \d)$/ })).toBeVisible();
	await page.goto(`${server.url}/admin?q=Reviewee&review=approved`);
	await expect(page.getByRole('row')).toHaveCount(6);
});
