// The portal as a Safe App (docs/sign-in.md "Inside Safe{Wallet}"): a test page on another loopback
// origin plays Safe{Wallet}. It frames /setup and answers the Safe Apps SDK's postMessage protocol for a
// real Safe 1.4.1 on an in-process chain 137 (ganache); the owner's signature is made in Node and the
// server checks it through ERC-1271 on that chain (POLYGON_RPC_URL).
import http from 'node:http';
import type { Frame, Page } from '@playwright/test';
import { hexToString, type Hex } from 'viem';
import type { RunningServer } from '../helpers/server';
import { freePort } from '../helpers/server';
import { signSafeMessage, startSafeChain, type SafeChain } from '../helpers/safe-chain';
import { expect, member, other, screenshots, startPortal, test } from './fixtures';

const SAFE_APPS_SDK_VERSION = '9.1.0';

let chain: SafeChain;
let portal: RunningServer;
let parent: http.Server;
let parentUrl: string;
/** 1-of-1 Safes owned by `member`, and a 2-of-2 Safe of `member` and `other`. */
let safeA: `0x${string}`;
let safeB: `0x${string}`;
let safe2of2: `0x${string}`;

/** The Safe{Wallet} stand-in: frames the portal's /setup and relays every SDK request to Node. */
function parentPage(portalUrl: string) {
	return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Test Safe{Wallet}</title>
<style>body{margin:0}iframe{display:block;border:0;width:100%;height:100vh}</style></head>
<body><main><iframe id="app" title="Safe App" src="${portalUrl}/setup"></iframe></main>
<script>
	const frame = document.getElementById('app');
	const portalOrigin = ${JSON.stringify(new URL(portalUrl).origin)};
	window.addEventListener('message', async (event) => {
		if (event.source !== frame.contentWindow || event.origin !== portalOrigin) return;
		const { id, method, params } = event.data || {};
		if (typeof id !== 'string' || typeof method !== 'string') return;
		const answer = await window.safeAppsAnswer(method, params);
		const body = 'error' in answer
			? { id, success: false, error: answer.error, version: ${JSON.stringify(SAFE_APPS_SDK_VERSION)} }
			: { id, success: true, data: answer.data, version: ${JSON.stringify(SAFE_APPS_SDK_VERSION)} };
		frame.contentWindow.postMessage(body, portalOrigin);
	});
	window.reloadApp = () => { frame.src = frame.src; };
</script></body></html>`;
}

test.beforeAll(async () => {
	test.setTimeout(120_000);
	chain = await startSafeChain();
	[safeA, safeB, safe2of2] = [
		await chain.createSafe([member.address], 1, 0n),
		await chain.createSafe([member.address], 1, 1n),
		await chain.createSafe([member.address, other.address], 2, 0n)
	];
	// Safe{Wallet}'s stand-in on localhost, the portal on 127.0.0.1: two sites, as in production.
	const port = await freePort();
	parentUrl = `http://localhost:${port}`;
	portal = await startPortal({ POLYGON_RPC_URL: chain.url, SAFE_APP_ORIGINS: parentUrl });
	parent = http.createServer((req, res) => {
		const url = new URL(req.url ?? '/', parentUrl);
		if (url.pathname !== '/') return void res.writeHead(404).end();
		// ?app=<port>: frame the portal on that loopback port instead (a portal started by one test).
		const app = url.searchParams.get('app');
		const framed = app && /^\d+$/.test(app) ? `http://127.0.0.1:${app}` : portal.url;
		res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(parentPage(framed));
	});
	await new Promise<void>((resolve) => parent.listen(port, '127.0.0.1', resolve));
});
test.afterAll(async () => {
	await new Promise((resolve) => parent?.close(resolve));
	await portal?.stop();
	await chain?.close();
});

interface SafeAppsCall {
	method: string;
	params: unknown;
}

/**
 * Answers the SDK's requests for `safe()` (the Safe shown to the app; change it to switch Safes), as
 * Safe{Wallet} does: getSafeInfo, getChainInfo, rpcCall through the chain, signMessage by the owner.
 */
async function playSafeWallet(
	page: Page,
	safe: () => { address: `0x${string}`; owners: `0x${string}`[]; threshold: number }
) {
	const calls: SafeAppsCall[] = [];
	await page.exposeFunction('safeAppsAnswer', async (method: string, params: unknown) => {
		calls.push({ method, params });
		const current = safe();
		switch (method) {
			case 'getSafeInfo':
				return {
					data: {
						safeAddress: current.address,
						chainId: 137,
						threshold: current.threshold,
						owners: current.owners,
						isReadOnly: false,
						network: 'MATIC'
					}
				};
			case 'getChainInfo':
				return {
					data: {
						chainName: 'Polygon',
						chainId: '137',
						shortName: 'matic',
						nativeCurrency: { name: 'POL', symbol: 'POL', decimals: 18 },
						blockExplorerUriTemplate: {}
					}
				};
			case 'rpcCall': {
				const { call, params: args } = params as { call: string; params: unknown[] };
				return { data: await chain.client.request({ method: call as never, params: args as never }) };
			}
			case 'signMessage': {
				// A 1-of-1 Safe: its one owner's signature completes the off-chain message at once.
				const { message } = params as { message: Hex };
				return { data: { signature: await signSafeMessage(member, current.address, message) } };
			}
			default:
				return { error: `${method} is not offered by this test` };
		}
	});
	return calls;
}

function appFrame(page: Page): Frame {
	const frame = page.frames().find((f) => f.url().startsWith(`${portal.url}/`));
	if (!frame) throw new Error('the portal frame is not there');
	return frame;
}

async function me(page: Page) {
	return appFrame(page).evaluate(
		async () => (await (await fetch('/api/auth/me', { cache: 'no-store' })).json()) as { address: string | null }
	);
}

test('inside Safe{Wallet} a 1-of-1 Safe signs in through ERC-1271; a change of Safe from the parent signs out', async ({
	page
}, testInfo) => {
	let current = { address: safeA, owners: [member.address], threshold: 1 };
	const calls = await playSafeWallet(page, () => current);
	const scripts: string[] = [];
	page.on('response', async (response) => {
		if (response.url().endsWith('.js')) scripts.push(await response.text().catch(() => ''));
	});

	await page.goto(parentUrl);
	const app = page.frameLocator('#app');
	await expect(app.getByText('Connected with Safe:')).toBeVisible();
	await expect(app.locator('code.address').first()).toHaveText(safeA);
	// The Safe App's code came with the frame.
	expect(scripts.some((code) => code.includes('getSafeInfo'))).toBe(true);
	await screenshots(page, testInfo, 'safe-app-connected');

	await app.getByRole('button', { name: 'Sign in' }).click();
	await expect(app.getByRole('heading', { name: 'You are signed in' })).toBeVisible();
	await expect(app.getByRole('main').getByText(/^Signed in as/)).toHaveText(`Signed in as ${safeA}.`);

	// The message named the Safe and chain 137; the parent was asked to sign it once.
	const signed = calls.filter((c) => c.method === 'signMessage');
	expect(signed).toHaveLength(1);
	const message = hexToString((signed[0]!.params as { message: Hex }).message);
	expect(message).toContain(`\n${safeA}\n`);
	expect(message).toContain('\nChain ID: 137\n');
	// The server holds the Safe's session: the owner's own address was never signed in.
	expect((await me(page)).address?.toLowerCase()).toBe(safeA.toLowerCase());

	// Safe{Wallet} switches to another Safe: it loads the app afresh, which finds a different account.
	current = { address: safeB, owners: [member.address], threshold: 1 };
	await page.evaluate(() => (window as unknown as { reloadApp(): void }).reloadApp());
	await expect(app.getByText('You were signed out because the active account in your wallet changed.')).toBeVisible();
	await expect(app.getByRole('heading', { name: 'You are signed in' })).toHaveCount(0);
	await expect.poll(async () => (await me(page)).address).toBeNull();
	await expect(app.locator('code.address').first()).toHaveText(safeB);
});

test('a Safe that needs two signatures is told it cannot finish in time, and no signature is asked', async ({
	page
}, testInfo) => {
	const calls = await playSafeWallet(page, () => ({
		address: safe2of2,
		owners: [member.address, other.address],
		threshold: 2
	}));
	await page.goto(parentUrl);
	const app = page.frameLocator('#app');
	const alert = app.getByRole('alert');
	await expect(alert).toContainText('This Safe needs 2 of its 2 owners to sign.');
	await expect(alert).toContainText('valid for at most 15 minutes');
	await expect(alert).toContainText(safe2of2);
	await expect(app.getByRole('button', { name: /Sign in/ })).toHaveCount(0);
	await screenshots(page, testInfo, 'safe-app-threshold-2');
	expect(calls.some((c) => c.method === 'signMessage')).toBe(false);
	expect((await me(page)).address).toBeNull();
});

test('without POLYGON_RPC_URL the Safe is refused, and /setup says, in words, that the portal must be connected to Polygon', async ({
	page
}) => {
	const noRpc = await startPortal({ SAFE_APP_ORIGINS: parentUrl });
	try {
		await playSafeWallet(page, () => ({ address: safeA, owners: [member.address], threshold: 1 }));
		await page.goto(`${parentUrl}/?app=${noRpc.port}`);
		const app = page.frameLocator('#app');
		await app.getByRole('button', { name: 'Sign in' }).click();
		const alert = app.getByRole('alert');
		await expect(alert).toContainText('The signature does not match the address.');
		await expect(alert).toContainText('which this portal can check only when it is connected to Polygon.');
		await expect(alert).not.toContainText('POLYGON_RPC_URL');
	} finally {
		await noRpc.stop();
	}
});

test('a normal visit to /setup loads none of the Safe App code', async ({ page }) => {
	const scripts: { url: string; code: string }[] = [];
	page.on('response', async (response) => {
		if (response.url().endsWith('.js')) scripts.push({ url: response.url(), code: await response.text() });
	});
	await page.goto(`${portal.url}/setup`);
	await expect(page.getByText('No wallet found in this browser.')).toBeVisible();
	expect(scripts.length).toBeGreaterThan(0);
	expect(scripts.filter((s) => s.code.includes('getSafeInfo')).map((s) => s.url)).toEqual([]);
});
