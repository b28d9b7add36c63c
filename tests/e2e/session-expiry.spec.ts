import type { RunningServer } from '../helpers/server';
import { TestWallet } from '../helpers/test-wallet';
import { expect, header, member, serverSession, startPortal, test } from './fixtures';

const TTL_SECONDS = 3;
let server: RunningServer;

test.beforeAll(async () => {
	server = await startPortal({ SESSION_TTL_SECONDS: String(TTL_SECONDS) });
});
test.afterAll(async () => {
	await server?.stop();
});

test('an expired session brings back the sign-in prompt', async ({ page }) => {
	await TestWallet.install(page, { account: member, chainId: 137, knownChains: [137] });
	await page.goto(`${server.url}/setup`);
	await page.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
	await expect(page.getByRole('heading', { name: 'You are signed in' })).toBeVisible();

	await expect.poll(async () => (await serverSession(page)).address, { timeout: 15_000 }).toBeNull();
	// Moving through the site asks the server again; the header and /setup return to signing in.
	await header(page).getByRole('link', { name: 'Member portal' }).click();
	await expect(header(page).getByRole('link', { name: 'Sign in' })).toBeVisible();
	await header(page).getByRole('link', { name: 'Sign in' }).click();
	await expect(page).toHaveURL(/\/setup$/);
	await expect(page.getByRole('heading', { name: 'You are signed in' })).toHaveCount(0);
	await expect(page.getByRole('button', { name: /^Sign in/ })).toBeVisible();
});
