// The end-to-end suite runs under the portal's Content-Security-Policy (docs/security.md): an inline
// script the policy does not name never runs, and the fixture fails a test whose page reports it.
import type { Page } from '@playwright/test';
import type { RunningServer } from '../helpers/server';
import { expect, startPortal, test } from './fixtures';

let server: RunningServer;

test.beforeAll(async () => {
	server = await startPortal();
});
test.afterAll(async () => {
	await server?.stop();
});

/** Adds an inline script the page's policy does not allow; true if it ran. */
const injectInlineScript = (page: Page) =>
	page.evaluate(() => {
		const script = document.createElement('script');
		script.textContent = 'window.__injectedRan = true';
		document.body.append(script);
		return (window as unknown as { __injectedRan?: boolean }).__injectedRan === true;
	});

// The home page has no scripts at all (issue 61, csr = false): drawn by the server, nothing to start.
test('/: no script at all, the page drawn by the server, with no violation', async ({ page }) => {
	const asked: string[] = [];
	page.on('request', (r) => {
		if (r.resourceType() === 'script' || new URL(r.url()).pathname === '/api/auth/me') asked.push(r.url());
	});
	await page.goto(`${server.url}/`);
	await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
	expect(await page.locator('script').count()).toBe(0);
	await page.waitForLoadState('networkidle');
	expect(asked).toEqual([]);
});

for (const path of ['/setup', '/apply', '/no-such-page']) {
	test(`${path}: the page's own inline bootstrap runs under the policy, with no violation`, async ({ page }) => {
		// The layout asks who is signed in once the app has started in the browser.
		const started = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/auth/me');
		await page.goto(`${server.url}${path}`);
		await started;
	});
}

test('an inline script the policy does not name is blocked, and the fixture fails the test', async ({ page }) => {
	test.fail(true, 'the blocked script is a violation: the fixture must fail this test');
	const started = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/auth/me');
	await page.goto(`${server.url}/setup`);
	await started;
	expect(await injectInlineScript(page)).toBe(false);
});
