// /setup in a browser with no wallet at all (no window.ethereum, no EIP-6963 wallet) loads no wallet
// library: it finds out without it (src/lib/wallet/detect.ts) and loads it only when the visitor
// picks WalletConnect. What it loads is counted here, gzip-compressed file by file as bench/js-size does.
import { gzipSync } from 'node:zlib';
import type { Page } from '@playwright/test';
import type { RunningServer } from '../helpers/server';
import { DESKTOP, expect, startPortal, test } from './fixtures';

// Strings only wallet code carries (wagmi's and viem's error texts, EIP-6963's event) and the siwe parser's.
const WALLET_MARKERS = ['wagmi.sh', '@wagmi/core@', 'viem@', 'SiweMessage'];
// Issue 61: at most 40 kB, in every locale. Its history, change by change, is in bench/README.md ("Per-locale
// JavaScript" and what follows): 41,429 B with the route table in the browser; within the bound once the browser asks
// the server which route a link leads to (`router.resolution: 'server'`, svelte.config.js).
const LIMIT_GZIP_BYTES = 40_000;
const NO_WALLET: Record<string, string> = {
	'': 'No wallet found in this browser. Install a wallet extension',
	'/es': 'No se encontró ninguna billetera en este navegador.',
	'/pt-BR': 'Nenhuma carteira encontrada neste navegador.',
	'/ar': 'لم يُعثر على محفظة في هذا المتصفح',
	'/zh-Hans': '此浏览器中未找到钱包。'
};

let server: RunningServer;
let withWalletConnect: RunningServer;
test.beforeAll(async () => {
	[server, withWalletConnect] = await Promise.all([
		startPortal(),
		startPortal({ PUBLIC_WALLETCONNECT_PROJECT_ID: '0123456789abcdef0123456789abcdef' })
	]);
});
test.afterAll(async () => {
	await Promise.all([server?.stop(), withWalletConnect?.stop()]);
});

/** Every JavaScript file the page receives from now on, with its body. */
function recordScripts(page: Page): Map<string, Buffer> {
	const scripts = new Map<string, Buffer>();
	page.on('response', async (response) => {
		if (response.request().resourceType() !== 'script' || !response.ok()) return;
		scripts.set(response.url(), await response.body().catch(() => Buffer.alloc(0)));
	});
	return scripts;
}

const gzipTotal = (scripts: Map<string, Buffer>) =>
	[...scripts.values()].reduce((sum, body) => sum + gzipSync(body, { level: 9 }).length, 0);
const walletMarkers = (scripts: Map<string, Buffer>) =>
	WALLET_MARKERS.filter((m) => [...scripts.values()].some((body) => body.includes(m)));

test.use({ viewport: DESKTOP });

for (const [prefix, help] of Object.entries(NO_WALLET))
	test(`a wallet-less browser on ${prefix}/setup: the no-wallet help, no wallet library, at most ${LIMIT_GZIP_BYTES / 1000} kB of JavaScript`, async ({
		browser
	}, testInfo) => {
		// A browser of that language (one that prefers another would also load the offer of it).
		const context = await browser.newContext({ viewport: DESKTOP, locale: prefix.slice(1) || 'en-US' });
		const page = await context.newPage();
		const scripts = recordScripts(page);
		await page.goto(`${server.url}${prefix}/setup`);
		await expect(page.getByText(help)).toBeVisible();
		await page.waitForLoadState('networkidle');
		expect(walletMarkers(scripts)).toEqual([]);
		const gzip = gzipTotal(scripts);
		testInfo.annotations.push({ type: 'js', description: `${scripts.size} scripts, ${gzip} B gzip` });
		expect(gzip).toBeLessThanOrEqual(LIMIT_GZIP_BYTES);
		await context.close();
	});

test('picking WalletConnect there loads the wallet library, and only then', async ({ page }) => {
	// WalletConnect's relay is out of reach: nothing leaves the machine.
	await page.route(/walletconnect\.(org|com)|web3modal\.(org|com)|reown\.com/, (route) => route.abort());
	await page.routeWebSocket(/walletconnect\.(org|com)/, (ws) => void ws.close({ code: 1011, reason: 'unreachable' }));
	const scripts = recordScripts(page);
	await page.goto(`${withWalletConnect.url}/setup`);
	const button = page.getByRole('button', { name: 'Sign in with WalletConnect' });
	await expect(button).toBeVisible();
	await page.waitForLoadState('networkidle');
	expect(walletMarkers(scripts)).toEqual([]);
	await button.click();
	await expect.poll(() => walletMarkers(scripts)).toContain('@wagmi/core@');
	// The connection was attempted (and fails without a relay): the visitor sees why, not a blank page.
	await expect(page.getByRole('alert')).toBeVisible({ timeout: 30_000 });
});

test('a browser with an EIP-6963 wallet gets the wallet library and its sign-in button', async ({ page }) => {
	await page.addInitScript(() => {
		const provider = { request: () => Promise.reject(new Error('not in this test')), on() {}, removeListener() {} };
		const info = {
			uuid: 'b3f2c1e0-0000-4000-8000-000000000001',
			name: 'Test Wallet',
			icon: 'data:,',
			rdns: 'test.wallet'
		};
		const announce = () =>
			window.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail: Object.freeze({ info, provider }) }));
		window.addEventListener('eip6963:requestProvider', announce);
		announce();
	});
	const scripts = recordScripts(page);
	await page.goto(`${server.url}/setup`);
	await expect(page.getByRole('button', { name: 'Sign in with Test Wallet' })).toBeVisible();
	expect(walletMarkers(scripts)).toContain('@wagmi/core@');
});
