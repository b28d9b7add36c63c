// The applicant's whole journey in Arabic (right to left) and in simplified Chinese, by keyboard only:
// sign in on /<locale>/setup, apply, check in, read the inbox, each page in the locale, axe-clean, and
// nothing scrolling sideways at 320 px (docs/decisions/0043-translations-by-url-prefix.md). The words the
// test looks for are read from messages/<locale>.json, so it checks what a person of that language reads.
import { readFileSync } from 'node:fs';
import AxeBuilder from '@axe-core/playwright';
import type { Locator, Page } from '@playwright/test';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { RunningServer } from '../helpers/server';
import { TestWallet } from '../helpers/test-wallet';
import { expect, header, screenshots, startPortal, tabTo, test } from './fixtures';

type Message = string | { match?: Record<string, string> }[];
const read = (locale: string) => JSON.parse(readFileSync(`messages/${locale}.json`, 'utf8')) as Record<string, Message>;

/** What `locale` says for the message `key` (a plain message, its `{inputs}` filled). */
function say(locale: string, key: string, inputs: Record<string, string> = {}): string {
	const said = read(locale)[key];
	if (typeof said !== 'string') throw new Error(`${key} is not a plain message in ${locale}`);
	return said.replace(/\{(\w+)\}/g, (_, name: string) => inputs[name] ?? `{${name}}`);
}

let server: RunningServer;
test.beforeAll(async () => {
	server = await startPortal();
});
test.afterAll(async () => {
	await server?.stop();
});

/** Tab to `target`, then press a key on it. */
async function press(page: Page, target: Locator, key = 'Enter') {
	await tabTo(page, target);
	await page.keyboard.press(key);
}

async function noSidewaysScrollAt320(page: Page, what: string) {
	const before = page.viewportSize()!;
	await page.setViewportSize({ width: 320, height: 720 });
	const overflow = await page.evaluate(
		() => document.documentElement.scrollWidth - document.documentElement.clientWidth
	);
	expect(overflow, `${what} scrolls sideways at 320 px`).toBeLessThanOrEqual(0);
	await page.setViewportSize(before);
}

for (const [locale, dir] of [
	['ar', 'rtl'],
	['zh-Hans', 'ltr']
] as const) {
	test(`an applicant who reads ${locale}: sign in, apply, check in and read the inbox by keyboard`, async ({
		browser
	}, testInfo) => {
		const context = await browser.newContext({ locale, viewport: { width: 390, height: 844 } });
		const page = await context.newPage();
		await TestWallet.install(page, {
			account: privateKeyToAccount(generatePrivateKey()),
			chainId: 137,
			knownChains: [1, 137]
		});

		await page.goto(`${server.url}/${locale}/setup`);
		await expect(page.locator('html')).toHaveAttribute('lang', locale);
		await expect(page.locator('html')).toHaveAttribute('dir', dir);
		// The browser's language is the page's: nothing is offered.
		await expect(page.getByRole('complementary', { name: say(locale, 'locale_switcher_label') })).toHaveCount(0);
		await press(
			page,
			page.getByRole('button', { name: say(locale, 'common_sign_in_with', { wallet: 'Test Wallet' }) })
		);
		await expect(page.getByRole('heading', { name: say(locale, 'signin_signed_in_title') })).toBeVisible();

		await press(page, header(page).getByRole('link', { name: say(locale, 'common_apply'), exact: true }));
		await expect(page).toHaveURL(`${server.url}/${locale}/apply`);
		await expect(page.getByRole('heading', { level: 1 })).toHaveText(say(locale, 'apply_heading'));
		await tabTo(page, page.getByLabel(say(locale, 'field_display_name')));
		await page.keyboard.type('ليلى / 莉拉');
		await tabTo(page, page.getByLabel(say(locale, 'field_motivation')));
		await page.keyboard.type('أود المساعدة في ترجمة الوثائق. 我想帮忙翻译文档。');
		await tabTo(page, page.getByLabel(say(locale, 'field_contact')));
		await page.keyboard.type('@layla:matrix.example');
		await press(page, page.getByRole('button', { name: say(locale, 'apply_submit_button') }));
		await expect(page.getByRole('status').filter({ hasText: say(locale, 'apply_received') })).toBeVisible();
		await expect(page.getByText('ليلى / 莉拉').first()).toBeVisible();
		await screenshots(page, testInfo, `apply-${locale}`);
		await noSidewaysScrollAt320(page, `/${locale}/apply`);

		await press(page, header(page).getByRole('link', { name: say(locale, 'common_check_in'), exact: true }));
		await expect(page).toHaveURL(`${server.url}/${locale}/checkin`);
		await tabTo(page, page.getByLabel(say(locale, 'checkin_note_label')));
		await page.keyboard.type('في مكالمة المجتمع اليوم');
		await press(page, page.getByRole('button', { name: say(locale, 'checkin_title'), exact: true }));
		await expect(page.getByRole('status')).toContainText(say(locale, 'checkin_done'));
		await screenshots(page, testInfo, `checkin-${locale}`);
		await noSidewaysScrollAt320(page, `/${locale}/checkin`);

		// The portal wrote to them in their language: the visit recorded it before they applied.
		await press(page, header(page).getByRole('link', { name: new RegExp(`^${say(locale, 'layout_nav_inbox')}`) }));
		await expect(page).toHaveURL(`${server.url}/${locale}/inbox`);
		await expect(page.getByRole('main')).toContainText(say(locale, 'notify_submitted_title'));
		await screenshots(page, testInfo, `inbox-${locale}`);
		await noSidewaysScrollAt320(page, `/${locale}/inbox`);
		await context.close();
	});
}

test('the switcher by keyboard: same page in another language, written in its direction', async ({ page }) => {
	await page.goto(`${server.url}/checkin`);
	const switcher = header(page).locator('details.locale > summary');
	await press(page, switcher);
	await press(page, header(page).getByRole('link', { name: 'العربية' }));
	await expect(page).toHaveURL(`${server.url}/ar/checkin`);
	await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
	await press(page, header(page).locator('details.locale > summary'));
	await press(page, header(page).getByRole('link', { name: 'English' }));
	await expect(page).toHaveURL(`${server.url}/checkin`);
	await expect(page.locator('html')).toHaveAttribute('dir', 'ltr');
});

test("the community's English description on /ar reads left to right, its last word and full stop at the right", async ({
	page
}) => {
	await page.setViewportSize({ width: 390, height: 800 });
	await page.goto(`${server.url}/ar`);
	await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
	const lead = page.locator('section.intro p.lead');
	// A community that wrote no description reads the portal's own, in Arabic; one that wrote it in English
	// has it drawn in the same paragraph (dir="auto"), as here.
	await expect(lead).toHaveText(say('ar', 'community_default_description'));
	await lead.evaluate((el) => {
		el.textContent =
			'A community that welcomes members by application: sign in with your wallet, tell us about yourself and check in.';
	});
	await expect(lead).toHaveText(/\.$/);
	expect(await lead.evaluate((el) => getComputedStyle(el).direction)).toBe('ltr');
	// The paragraph's last line ends at the right: its full stop is right of every other character on that line.
	const ends = await lead.evaluate((el) => {
		const text = el.firstChild!;
		const range = document.createRange();
		const n = text.textContent!.length;
		range.setStart(text, n - 1);
		range.setEnd(text, n);
		const stop = range.getBoundingClientRect();
		range.setStart(text, 0);
		const lines = [...range.getClientRects()].filter((r) => Math.abs(r.top - stop.top) < 2);
		return { stop: stop.right, line: Math.max(...lines.map((r) => r.right)) };
	});
	expect(ends.stop).toBeGreaterThanOrEqual(ends.line - 1);
});

test('a browser that prefers Spanish is offered Spanish, in Spanish, and not asked again once it says no', async ({
	browser
}) => {
	const context = await browser.newContext({ locale: 'es-MX' });
	const page = await context.newPage();
	await page.goto(`${server.url}/`);
	// Never sent there by itself.
	await expect(page).toHaveURL(`${server.url}/`);
	const offer = page.getByRole('complementary', { name: 'Idioma' });
	await expect(offer).toHaveAttribute('lang', 'es');
	await expect(offer.getByRole('link')).toHaveAttribute('href', '/es');
	await offer.getByRole('button').click();
	await expect(offer).toHaveCount(0);
	await page.reload();
	await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
	await expect(page.getByRole('complementary', { name: 'Idioma' })).toHaveCount(0);
	await context.close();
});

test('a Spanish applicant who signs in from the home page lands on /es/apply and is written to in Spanish', async ({
	browser
}) => {
	const context = await browser.newContext({ locale: 'es', viewport: { width: 390, height: 844 } });
	const page = await context.newPage();
	await TestWallet.install(page, {
		account: privateKeyToAccount(generatePrivateKey()),
		chainId: 137,
		knownChains: [1, 137]
	});
	await page.goto(`${server.url}/es`);
	await page.getByRole('link', { name: say('es', 'common_sign_in_to_apply') }).click();
	await expect(page).toHaveURL(`${server.url}/es/setup?next=${encodeURIComponent('/es/apply')}`);
	await page.getByRole('button', { name: say('es', 'common_sign_in_with', { wallet: 'Test Wallet' }) }).click();
	// Straight on to the form, still in Spanish.
	await expect(page).toHaveURL(`${server.url}/es/apply`);
	await expect(page.locator('html')).toHaveAttribute('lang', 'es');
	await expect(page.getByRole('heading', { level: 1 })).toHaveText(say('es', 'apply_heading'));
	await page.getByLabel(say('es', 'field_display_name')).fill('Lucía');
	await page.getByLabel(say('es', 'field_motivation')).fill('Quiero ayudar a traducir la documentación.');
	await page.getByRole('button', { name: say('es', 'apply_submit_button') }).click();
	await expect(page.getByRole('status').filter({ hasText: say('es', 'apply_received') })).toBeVisible();
	// Recorded as Spanish when they applied: the notification was written in Spanish, whatever page reads it now.
	await page.goto(`${server.url}/inbox`);
	await expect(page.getByRole('main')).toContainText(say('es', 'notify_submitted_title'));
	await context.close();
});

test('a /setup link whose next leaves the site once its prefix is off signs in and stays on /setup', async ({
	page
}) => {
	await TestWallet.install(page, {
		account: privateKeyToAccount(generatePrivateKey()),
		chainId: 137,
		knownChains: [137]
	});
	await page.goto(`${server.url}/setup?next=${encodeURIComponent('/es//evil.example')}`);
	await page.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
	await expect(page.getByRole('heading', { name: say('en', 'signin_signed_in_title') })).toBeVisible();
	await page.waitForTimeout(500);
	await expect(page).toHaveURL(`${server.url}/setup?next=${encodeURIComponent('/es//evil.example')}`);
});

test('the offer on a request path with a doubled slash links to this site, never to another host', async ({
	browser
}) => {
	const context = await browser.newContext({ locale: 'en-GB' });
	const page = await context.newPage();
	await page.goto(`${server.url}/es//evil.example`);
	const offer = page.getByRole('complementary', { name: 'Language' });
	const href = await offer.getByRole('link').getAttribute('href');
	expect(href).toBe('/evil.example');
	expect(new URL(href!, server.url).origin).toBe(server.url);
	await context.close();
});

// axe's `region` (moderate, so screenshots() lets it pass): every piece of a page inside a landmark. It was
// reported on every non-English page (issue 61); the browser prefers English here, so the language offer shows too.
for (const locale of ['es', 'ar'] as const)
	test(`every piece of /${locale}'s pages is inside a landmark (axe region), the language offer shown`, async ({
		browser
	}) => {
		const context = await browser.newContext({ locale: 'en-US', viewport: { width: 390, height: 844 } });
		const page = await context.newPage();
		for (const path of ['', '/setup', '/apply', '/checkin']) {
			await page.goto(`${server.url}/${locale}${path}`);
			await expect(page.getByRole('complementary', { name: say('en', 'locale_switcher_label') })).toBeVisible();
			const { violations } = await new AxeBuilder({ page }).withRules(['region']).analyze();
			expect(
				violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
				`axe region on /${locale}${path}`
			).toEqual([]);
		}
		await context.close();
	});
