// The first impression in every role: the home page that guides, /setup and the 404 page, screenshot
// and axe-checked light and dark at phone and desktop width (docs/design-system.md).
import { expect, test } from '@playwright/test';
import type { RunningServer } from '../helpers/server';
import { TestWallet } from '../helpers/test-wallet';
import { admin, header, member, screenshots, startPortal } from './fixtures';

let server: RunningServer;

test.beforeAll(async () => {
	// No COMMUNITY_PULSE_REPO: the home page has no feed section at all.
	server = await startPortal({ ADMIN_ADDRESSES: admin.address });
});
test.afterAll(async () => {
	await server?.stop();
});

test('a visitor: the home page says what the community is and how to join, with no feed and no error', async ({
	page
}, testInfo) => {
	const consoleErrors: string[] = [];
	page.on('console', (m) => void (m.type() === 'error' && consoleErrors.push(m.text())));
	await page.goto(`${server.url}/`);
	// Nothing to show is not a failure: the feed's API says so with 204 (no error status), and the server
	// draws the page without it (issue 61: the home page has no scripts; the console stays clean).
	expect((await page.request.get(`${server.url}/api/community-pulse`)).status()).toBe(204);
	await expect(page).toHaveTitle('Member portal');
	await expect(page.getByRole('heading', { name: 'Member portal', level: 1 })).toBeVisible();
	await expect(page.getByRole('heading', { name: 'How membership works' })).toBeVisible();
	await expect(page.getByRole('main').getByRole('listitem')).toHaveCount(4);
	await expect(page.getByRole('link', { name: 'Sign in to apply' })).toHaveAttribute('href', '/setup?next=%2Fapply');
	await expect(page.getByRole('heading', { name: 'Community pulse' })).toHaveCount(0);
	await expect(page.getByRole('alert')).toHaveCount(0);
	expect(consoleErrors).toEqual([]);
	await expect(page.locator('link[rel="icon"]')).toHaveAttribute('href', /\/favicon\.svg$/);
	expect((await page.request.get(`${server.url}/favicon.svg`)).headers()['content-type']).toContain('image/svg+xml');
	await screenshots(page, testInfo, 'home-visitor');

	await page.goto(`${server.url}/setup`);
	await expect(page.getByRole('heading', { name: 'Sign in to Member portal' })).toBeVisible();
	await screenshots(page, testInfo, 'setup-visitor');

	const response = await page.goto(`${server.url}/no/such/page`);
	expect(response?.status()).toBe(404);
	await expect(page).toHaveTitle('Page not found · Member portal');
	await expect(header(page).getByRole('link', { name: 'Member portal' })).toBeVisible();
	await screenshots(page, testInfo, '404-visitor');
});

for (const [role, account] of [
	['member', member],
	['admin', admin]
] as const) {
	test(`a signed-in ${role}: the home page offers their application; pages pass axe light and dark`, async ({
		page
	}, testInfo) => {
		await TestWallet.install(page, { account, chainId: 137, knownChains: [137] });
		await page.goto(`${server.url}/setup`);
		await page.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
		await expect(page.getByRole('heading', { name: 'You are signed in' })).toBeVisible();
		await screenshots(page, testInfo, `setup-${role}`);
		await page.goto(`${server.url}/`);
		await expect(page.getByRole('link', { name: 'See your application' })).toHaveAttribute('href', '/apply');
		await screenshots(page, testInfo, `home-${role}`);
		// An admin's pages too (the review table and the detail page with data: e2e/admin-review).
		for (const path of role === 'admin'
			? ['/apply', '/checkin', '/admin', '/admin/webhooks']
			: ['/apply', '/checkin']) {
			await page.goto(`${server.url}${path}`);
			await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
			await screenshots(page, testInfo, `${path.slice(1).replace('/', '-')}-${role}`);
		}
		const response = await page.goto(`${server.url}/no-such-page`);
		expect(response?.status()).toBe(404);
		await screenshots(page, testInfo, `404-${role}`);
	});
}
