import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page, Request } from '@playwright/test';
import type { RunningServer } from '../helpers/server';
import { TestWallet } from '../helpers/test-wallet';
import { DESKTOP, expect, member, PHONE, screenshots, startPortal, test } from './fixtures';

const PROJECT_ID = '0123456789abcdef0123456789abcdef';
const IPHONE_SAFARI =
	'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
// A string only src/lib/wallet/connectors/walletconnect.ts carries, and one only WalletConnect's client does.
const CONNECTOR_MARK = 'Could not reach WalletConnect';
const CLIENT_MARK = 'relay.walletconnect';

let plain: RunningServer;
let configured: RunningServer;
test.beforeAll(async () => {
	[plain, configured] = await Promise.all([
		startPortal(),
		startPortal({ PUBLIC_WALLETCONNECT_PROJECT_ID: PROJECT_ID })
	]);
});
test.afterAll(async () => {
	await Promise.all([plain?.stop(), configured?.stop()]);
});

const walletConnectButton = (page: Page) => page.getByRole('button', { name: /with WalletConnect$/ });

/** The built file behind a script the page requested. */
const builtScript = (url: string) => readFileSync(path.join('build/client', new URL(url).pathname), 'utf8');

/**
 * WalletConnect's hosts out of reach: its https requests fail, and its relay socket is `closed` at once
 * or, as a black hole, opens and never answers (`silent`). Nothing leaves the machine either way.
 */
async function relayOutOfReach(page: Page, mode: 'closed' | 'silent') {
	await page.route(/walletconnect\.(org|com)|web3modal\.(org|com)|reown\.com/, (route) => route.abort());
	await page.routeWebSocket(/walletconnect\.(org|com)/, (ws) => {
		if (mode === 'closed') void ws.close({ code: 1011, reason: 'unreachable' });
	});
}

test.describe('without PUBLIC_WALLETCONNECT_PROJECT_ID', () => {
	test.use({ viewport: DESKTOP });

	test('/setup offers no WalletConnect and its policy names none of its hosts', async ({ page }) => {
		const response = await page.goto(`${plain.url}/setup`);
		await expect(page.getByText('No wallet found in this browser. Install a wallet extension')).toBeVisible();
		await expect(walletConnectButton(page)).toHaveCount(0);
		const policy = response!.headers()['content-security-policy']!;
		expect(policy).toContain("connect-src 'self'");
		expect(policy).not.toMatch(/walletconnect|web3modal|reown|frame-src/);
		expect(policy).toContain("frame-ancestors 'none'");
		// A page rendered per request (its own nonce) is narrowed the same way.
		const rendered = (await page.request.get(`${plain.url}/apply`)).headers()['content-security-policy']!;
		expect(rendered).toMatch(/'nonce-/);
		expect(rendered).toContain("connect-src 'self'");
		expect(rendered).not.toMatch(/walletconnect|web3modal|reown|frame-src/);
	});

	test('a wallet in the browser is the only choice', async ({ page }) => {
		await TestWallet.install(page, { account: member, chainId: 137 });
		await page.goto(`${plain.url}/setup`);
		await expect(page.getByRole('button', { name: 'Sign in with Test Wallet' })).toBeVisible();
		await expect(walletConnectButton(page)).toHaveCount(0);
	});
});

test.describe('with PUBLIC_WALLETCONNECT_PROJECT_ID', () => {
	test.use({ viewport: DESKTOP });

	test('/setup offers WalletConnect beside a wallet in the browser and the policy allows its relay', async ({
		page
	}) => {
		await TestWallet.install(page, { account: member, chainId: 137 });
		const response = await page.goto(`${configured.url}/setup`);
		const choices = page.getByRole('list', { name: 'Wallets found in this browser' }).getByRole('button');
		await expect(choices).toHaveText(['Sign in with Test Wallet', 'Sign in with WalletConnect']);
		const policy = response!.headers()['content-security-policy']!;
		expect(policy).toMatch(/connect-src 'self' [^;]*wss:\/\/relay\.walletconnect\.org/);
		expect(policy).toMatch(/frame-src 'self' https:\/\/verify\.walletconnect\.org/);
		expect(policy).toContain("frame-ancestors 'none'");
		const rendered = (await page.request.get(`${configured.url}/apply`)).headers()['content-security-policy']!;
		expect(rendered).toMatch(/'nonce-/);
		expect(rendered).toMatch(/connect-src 'self' [^;]*wss:\/\/relay\.walletconnect\.org/);
	});

	test('a desktop with no wallet keeps the extension advice and offers WalletConnect', async ({ page }, testInfo) => {
		await page.goto(`${configured.url}/setup`);
		await expect(page.getByText('No wallet found in this browser. Install a wallet extension')).toBeVisible();
		await expect(walletConnectButton(page)).toHaveText('Sign in with WalletConnect');
		await screenshots(page, testInfo, 'setup-walletconnect-no-wallet');
	});

	test.describe('a phone with no wallet', () => {
		test.use({ viewport: PHONE, userAgent: IPHONE_SAFARI, isMobile: true, hasTouch: true });

		test('offers WalletConnect after the wallet-app links', async ({ page }) => {
			await page.goto(`${configured.url}/setup`);
			await expect(page.getByRole('list', { name: 'Wallet apps' }).getByRole('link')).toHaveCount(4);
			await expect(walletConnectButton(page)).toHaveText('Sign in with WalletConnect');
		});
	});

	for (const mode of ['closed', 'silent'] as const) {
		test(`its code loads only when chosen; a relay out of reach (${mode}) fails within 10 s, and the member can pick again`, async ({
			page
		}) => {
			await relayOutOfReach(page, mode);
			const scripts: string[] = [];
			const isChunk = (request: Request) =>
				// The build's chunks (/_app/env.js, the run-time settings, is made per request).
				request.resourceType() === 'script' && request.url().includes('/_app/immutable/');
			page.on('request', (request) => {
				if (isChunk(request)) scripts.push(request.url());
			});
			// When the last chunk arrived: the relay's 10 s start once the WalletConnect code is in, and a
			// loaded machine can take seconds to serve it.
			let lastChunkAt = 0;
			page.on('requestfinished', (request) => {
				if (isChunk(request)) lastChunkAt = Date.now();
			});
			await page.goto(`${configured.url}/setup`);
			await expect(walletConnectButton(page)).toBeVisible();
			// Everything /setup loaded so far: the sign-in UI and the injected flow, no WalletConnect code.
			expect(scripts.length).toBeGreaterThan(0);
			for (const url of scripts) {
				expect(builtScript(url), url).not.toContain(CONNECTOR_MARK);
				expect(builtScript(url), url).not.toContain(CLIENT_MARK);
			}
			const before = scripts.length;

			const started = Date.now();
			await walletConnectButton(page).click();
			const alert = page.getByRole('alert');
			await expect(alert).toHaveText(/Could not reach WalletConnect\. Check your internet connection/, {
				timeout: 20_000
			});
			expect(Date.now() - Math.max(started, lastChunkAt)).toBeLessThan(10_000 + 1_500);
			const loaded = scripts.slice(before).map(builtScript);
			expect(loaded.some((code) => code.includes(CONNECTOR_MARK))).toBe(true);
			expect(loaded.some((code) => code.includes(CLIENT_MARK))).toBe(true);

			// Not stuck: both kinds of choice are offered again, and WalletConnect fails the same way.
			await expect(walletConnectButton(page)).toHaveText('Try again with WalletConnect');
			await expect(page.getByText('No wallet found in this browser')).toBeVisible();
			await walletConnectButton(page).click();
			await expect(page.getByRole('status')).toHaveText(/WalletConnect/);
			await expect(alert).toHaveText(/Could not reach WalletConnect/, { timeout: 12_000 });
			await expect(walletConnectButton(page)).toBeEnabled();
		});
	}
});
