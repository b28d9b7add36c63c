import { startPortalOnOwnDatabase, type OwnDatabasePortal } from '../helpers/own-database';
import { admin, expect, pageAs, screenshots, tabTo, test } from './fixtures';
import { JOURNEY_LOCALES, wordsOf } from './words';

// Issue 59, keyboard alone: an owner gives the community its name and colour on /admin/settings. A colour
// too light for the light theme is flagged as it is typed and refused on saving, the refusal naming the
// ratio at the field and as a link in the page's summary; a good one is saved, with the name in the
// page's own language, and the next page shows both (the header, the home page, the accent's tokens in
// either scheme). In English and in Arabic, right to left; each page axe clean, phone and desktop, light
// and dark.
let portal: OwnDatabasePortal;

test.beforeAll(async () => {
	test.setTimeout(180_000);
	portal = await startPortalOnOwnDatabase({ ADMIN_ADDRESSES: admin.address });
});
test.afterAll(async () => {
	await portal?.stop();
});

test.describe.configure({ timeout: 240_000 });

for (const locale of JOURNEY_LOCALES)
	test(`${locale}: an owner names the community and picks its colour by keyboard; a colour too light is refused with its ratio`, async ({
		browser
	}, testInfo) => {
		const { say, path } = wordsOf(locale);
		const name = locale === 'ar' ? 'نقابة أطلس' : 'Atlas Guild';
		const ownName = locale === 'ar' ? 'name.ar' : 'name';
		const page = await pageAs(browser, portal, admin);
		await page.goto(`${portal.url}${path('/admin/settings')}`);
		await expect(page.locator('html')).toHaveAttribute('dir', locale === 'ar' ? 'rtl' : 'ltr');

		// The name in the page's own language: the base one in English, the Arabic translation in Arabic.
		await tabTo(page, `[name="${ownName}"]`, 120);
		await page.keyboard.press('ControlOrMeta+A');
		await page.keyboard.type(name);
		await tabTo(page, '[name="accent"]', 120);
		await page.keyboard.press('ControlOrMeta+A');
		await page.keyboard.type('#ffd700');
		// Told as it is typed, before anything is sent.
		await expect(page.getByText(say('settings_accent_short'))).toBeVisible();
		await page.keyboard.press('Enter');

		const accent = page.locator('[name="accent"]');
		const refusal = say('settings_accent_contrast', {
			accent: '#ffd700',
			ratio: '1.34:1',
			background: '#fafafb',
			theme: say('settings_theme_light'),
			minimum: '4.5:1'
		});
		await expect(page.locator('#settings-form').getByText(refusal)).toBeVisible();
		await expect(accent).toHaveAttribute('aria-invalid', 'true');
		const item = page.getByRole('alert').getByRole('link', { name: say('settings_accent_label') });
		await expect(item).toHaveAttribute('href', '#settings-accent');
		await item.focus();
		await page.keyboard.press('Enter');
		await expect(accent).toBeFocused();
		// What was typed is kept.
		await expect(page.locator(`[name="${ownName}"]`)).toHaveValue(name);
		await screenshots(page, testInfo, `settings-refused-${locale}`);

		await page.keyboard.press('ControlOrMeta+A');
		await page.keyboard.type('#0052ff');
		await expect(page.getByText(say('settings_accent_short'))).toHaveCount(0);
		await tabTo(page, page.getByRole('button', { name: say('settings_save') }), 120);
		await page.keyboard.press('Enter');
		await expect(page.getByText(say('settings_done_saved'))).toBeVisible();
		// The header on this very page shows the new name; the accent's tokens are the saved colour's.
		await expect(page.locator('header .name')).toHaveText(name);
		const token = (property: string) =>
			page.evaluate((p) => getComputedStyle(document.documentElement).getPropertyValue(p).trim(), property);
		expect(await token('--accent')).toBe('#0052ff');
		await screenshots(page, testInfo, `settings-saved-${locale}`);

		// The home page in this locale, in both schemes: the name, and text in a tone of the accent that
		// reads on each background (screenshots() runs axe's colour rules in light and dark).
		await page.goto(`${portal.url}${path('/')}`);
		await expect(page.getByRole('heading', { level: 1 })).toHaveText(name);
		await page.emulateMedia({ colorScheme: 'dark' });
		const darkStrong = await token('--accent-strong');
		await page.emulateMedia({ colorScheme: 'light' });
		expect(await token('--accent-strong')).toBe('#0052ff');
		expect(darkStrong).not.toBe('#0052ff');
		await screenshots(page, testInfo, `settings-home-${locale}`);
		await page.context().close();
	});
