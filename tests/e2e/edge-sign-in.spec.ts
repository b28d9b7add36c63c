// The browser half of the switch test (Unauthenticated endpoints rule 3, docs/edge-limits.md): with the shipped nginx limits in front
// of the built portal, the /setup sign-in shows the wait message when the edge answers 429.
import { type Response } from '@playwright/test';
import { NGINX_BIN, NGINX_MISSING_REASON, roomInMinute, startNginx, type RunningNginx } from '../helpers/nginx';
import { freePort, startServer, type RunningServer } from '../helpers/server';
import { TestWallet } from '../helpers/test-wallet';
import { expect, member, test } from './fixtures';

test.skip(!NGINX_BIN, NGINX_MISSING_REASON);
test.describe.configure({ mode: 'serial', timeout: 120_000 });

let portal: RunningServer | undefined;
let edge: RunningNginx | undefined;

test.beforeAll(async () => {
	const edgePort = await freePort();
	// The browser only ever sees the edge: the signed message names its host and origin.
	portal = await startServer({
		env: {
			ORIGIN: `http://127.0.0.1:${edgePort}`,
			SIWE_ALLOWED_DOMAINS: `127.0.0.1:${edgePort}`,
			ADDRESS_HEADER: 'X-Forwarded-For',
			XFF_DEPTH: '1'
		}
	});
	if (portal.process.exitCode !== null) throw new Error(portal.output());
	edge = await startNginx({ upstream: `127.0.0.1:${portal.port}`, mode: 'enforce', port: edgePort });
});

test.afterAll(async () => {
	await edge?.stop();
	await portal?.stop();
});

function authAnswers(page: import('@playwright/test').Page): Response[] {
	const seen: Response[] = [];
	page.on('response', (r) => {
		if (new URL(r.url()).pathname.startsWith('/api/auth/')) seen.push(r);
	});
	return seen;
}

test('under the limit, sign-in through the edge works', async ({ page }) => {
	await TestWallet.install(page, { account: member, chainId: 137, knownChains: [137] });
	await page.goto(`${edge!.url}/setup`);
	await page.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
	await expect(page.getByRole('heading', { name: 'You are signed in' })).toBeVisible();
});

test('over the limit the edge answers 429 (not 403) and /setup shows the wait message, with nothing to retry', async ({
	page
}) => {
	// The whole test must fall in one clock minute: nginx's window.
	await roomInMinute(40);
	// Spend this address's allowance (the browser connects from loopback too) until the edge refuses.
	let status = 0;
	let body = '';
	for (let i = 0; i < 200 && status !== 429; i++) {
		const response = await fetch(`${edge!.url}/api/auth/nonce`);
		body = await response.text();
		status = response.status;
		expect(status).not.toBe(403);
	}
	expect(status).toBe(429);
	// The edge's refusal, not the portal's.
	expect(JSON.parse(body)).toMatchObject({ error: { code: 'rate_limited' } });

	const wallet = await TestWallet.install(page, { account: member, chainId: 137, knownChains: [137] });
	const answers = authAnswers(page);
	await page.goto(`${edge!.url}/setup`);
	await page.getByRole('button', { name: 'Sign in with Test Wallet' }).click();

	await expect(page.getByRole('alert')).toContainText(/traffic is high/i);
	await expect(page.getByRole('alert')).toContainText(/wait/i);
	// No retry or sign-again control: pressing it would spend more of the limit.
	await expect(page.getByRole('main').getByRole('button')).toHaveCount(0);
	expect(wallet.signedMessages).toEqual([]);

	const nonce = answers.find((r) => new URL(r.url()).pathname === '/api/auth/nonce');
	expect(nonce?.status()).toBe(429);
	expect(answers.map((r) => r.status())).not.toContain(403);
});
