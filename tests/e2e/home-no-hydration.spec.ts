// Issue 61: the home page in every locale ships at most 40 kB of JavaScript (gzip, file by file, as
// bench/js-size does), for a visitor and for a signed-in member. It does not hydrate (csr = false): the
// server draws it, its forms post without scripts, and a signed-in member's page loads only the account
// watcher (src/lib/wallet/home-sign-out.js), which still signs out when the wallet's account changes.
import { gzipSync } from 'node:zlib';
import type { Page } from '@playwright/test';
import type { RunningServer } from '../helpers/server';
import { TestWallet } from '../helpers/test-wallet';
import {
	DESKTOP,
	PHONE,
	expect,
	header,
	member,
	other,
	pageAs,
	serverSession,
	startPortal,
	tabTo,
	test
} from './fixtures';
import { wordsOf } from './words';

const LIMIT_GZIP_BYTES = 40_000;
const PREFIXES = ['', '/es', '/pt-BR', '/zh-Hans', '/ar'] as const;

let server: RunningServer;
test.beforeAll(async () => {
	server = await startPortal();
});
test.afterAll(async () => {
	await server?.stop();
});

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

for (const prefix of PREFIXES)
	for (const who of ['a visitor', 'a signed-in member'] as const)
		test(`${prefix || '/'} for ${who}: at most ${LIMIT_GZIP_BYTES / 1000} kB of JavaScript, the header as the server knows it`, async ({
			browser
		}, testInfo) => {
			// A browser that prefers English: on the other locales the language offer shows too.
			const page =
				who === 'a visitor'
					? await (await browser.newContext({ viewport: DESKTOP, locale: 'en-US' })).newPage()
					: await pageAs(browser, server, member, { locale: 'en-US' });
			const scripts = recordScripts(page);
			await page.goto(`${server.url}${prefix || '/'}`);
			await page.waitForLoadState('networkidle');
			if (who === 'a visitor') {
				await expect(header(page).locator('.account a.button')).toHaveAttribute('href', `${prefix}/setup`);
				await expect(header(page).locator('.address')).toHaveCount(0);
				expect(scripts.size, 'a visitor loads no script at all').toBe(0);
			} else {
				await expect(header(page).locator('.address')).toHaveAttribute('title', member.address);
				expect(
					[...scripts.keys()].map((url) => new URL(url).pathname),
					'the account watcher only'
				).toEqual([expect.stringMatching(/^\/_app\/immutable\/assets\/home-sign-out\.[\w-]+\.js$/)]);
			}
			if (prefix) await expect(page.getByRole('complementary', { name: 'Language' })).toBeVisible();
			const gzip = gzipTotal(scripts);
			testInfo.annotations.push({ type: 'js', description: `${scripts.size} scripts, ${gzip} B gzip` });
			expect(gzip).toBeLessThanOrEqual(LIMIT_GZIP_BYTES);
			await page.context().close();
		});

test("a signed-in member on /es whose wallet switches account is signed out, and told why in the page's language", async ({
	browser
}) => {
	const page = await pageAs(browser, server, member, { locale: 'es' });
	const wallet = await TestWallet.install(page, { account: member, chainId: 137, knownChains: [137] });
	// The member connected this site's wallet when they signed in.
	wallet.authorized = true;
	await page.goto(`${server.url}/es`);
	await expect(header(page).locator('.address')).toHaveAttribute('title', member.address);
	await wallet.connectedInPage();
	// A change of network is no reason to sign out off /setup.
	await wallet.changeChain(1);
	await page.waitForTimeout(500);
	expect((await serverSession(page)).address).toBe(member.address);

	await wallet.changeAccount(other);
	await expect(page).toHaveURL(`${server.url}/es`);
	await expect(header(page).getByRole('link', { name: 'Iniciar sesión' })).toBeVisible();
	await expect(page.getByRole('status')).toContainText('cuenta activa');
	expect(await serverSession(page)).toEqual({ address: null, isAdmin: false });
	// Said once: the next page does not repeat it.
	await page.reload();
	await expect(page.getByRole('status')).toHaveCount(0);
	await page.context().close();
});

test('without scripts at all: Sign out on / posts, the server signs out and draws / again, under its locale', async ({
	browser
}) => {
	const page = await pageAs(browser, server, member, { scripts: 'off' });
	await page.goto(`${server.url}/zh-Hans?x=1`);
	await header(page).locator('.account button').click();
	await expect(page).toHaveURL(`${server.url}/zh-Hans?x=1`);
	await expect(header(page).locator('.address')).toHaveCount(0);
	const me = await page.request.get(`${server.url}/api/auth/me`);
	expect((await me.json()) as unknown).toEqual({ address: null, isAdmin: false });
	await page.context().close();
});

// The language offer's "No, thanks" on the home page, keyboard alone: a form's post (the page has no script),
// the server remembers the answer and draws the same page again, without the offer, then and on later pages.
// An English browser on the Arabic home page, and an Arabic browser on the English one (the offer speaks the
// browser's language, in its direction).
for (const [browserLocale, prefix] of [
	['en', '/ar'],
	['ar', '']
] as const)
	test(`a browser preferring ${browserLocale} on ${prefix || '/'}: "No, thanks" by keyboard hides the offer, here and on the next page`, async ({
		browser
	}) => {
		const { say } = wordsOf(browserLocale);
		const page = await (await browser.newContext({ viewport: PHONE, locale: browserLocale })).newPage();
		await page.goto(`${server.url}${prefix || '/'}?from=mail`);
		const offer = page.getByRole('complementary', { name: say('locale_switcher_label') });
		await expect(offer).toHaveAttribute('dir', browserLocale === 'ar' ? 'rtl' : 'ltr');
		const dismiss = offer.getByRole('button', { name: say('locale_offer_dismiss') });
		await tabTo(page, dismiss, 20);
		// Where the keyboard is can be seen.
		expect(await dismiss.evaluate((b) => getComputedStyle(b).outlineStyle)).not.toBe('none');
		await page.keyboard.press('Enter');
		await expect(page).toHaveURL(`${server.url}${prefix || '/'}?from=mail`);
		await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
		await expect(offer).toHaveCount(0);
		await page.goto(`${server.url}${prefix}/setup`);
		await expect(page.locator('html')).toHaveAttribute('lang', prefix ? 'ar' : 'en');
		await expect(offer).toHaveCount(0);
		await page.context().close();
	});
