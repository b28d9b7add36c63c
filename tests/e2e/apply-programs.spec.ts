import type { Locator, Page } from '@playwright/test';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startPortalOnOwnDatabase, type OwnDatabasePortal } from '../helpers/own-database';
import { expect, pageAs, screenshots, tabTo, test } from './fixtures';
import { JOURNEY_LOCALES, wordsOf } from './words';

// Issue 57: an applicant applies to two programmes through the pages with the keyboard alone (no clicks,
// no element.focus()): from the home page's list of open programmes to one programme's form, then from
// /apply's list to the other's; each page axe clean at both widths in both schemes. In English and in
// Arabic, right to left, on one server (programmes seeded with SQL, as an operator's script would).
let portal: OwnDatabasePortal;
/** Builders' name as each run reads it: the community gave it an Arabic one. */
const builders = { en: 'Builders', ar: 'البنّاؤون' } as const;

test.beforeAll(async () => {
	portal = await startPortalOnOwnDatabase();
	const closes = new Date(Date.now() + 30 * 86_400_000).toISOString();
	await portal.query(
		`with b as (insert into programs (slug, name, description, translations)
		   values ('builders', 'Builders', 'People who ship', '{"ar": {"name": "البنّاؤون", "description": "من يبنون"}}') returning id),
		 s as (insert into programs (slug, name, description) values ('stewards', 'Stewards', 'People who care') returning id)
		 insert into rounds (program_id, name, opens_at, closes_at)
		 select id, 'Cohort 1', now() - interval '1 day', '${closes}'::timestamptz from b
		 union all select id, 'Always', now() - interval '1 day', null from s`
	);
});
test.afterAll(async () => {
	await portal?.stop();
});

/** Fills the apply form by keyboard (Tab to each field, type) and submits it with Enter on its button. */
async function fillAndSubmit(page: Page, say: ReturnType<typeof wordsOf>['say'], name: string, why: string) {
	const field = (label: string): Locator => page.getByRole('textbox', { name: label, exact: false });
	await tabTo(page, field(say('field_display_name')));
	await page.keyboard.type(name);
	await tabTo(page, field(say('field_motivation')), 3);
	await page.keyboard.type(why);
	await tabTo(page, page.getByRole('button', { name: say('apply_submit_button') }), 6);
	await page.keyboard.press('Enter');
	await expect(page.getByRole('heading', { level: 2, name })).toBeVisible();
}

for (const locale of JOURNEY_LOCALES)
	test(`${locale}: an applicant applies to two programmes by keyboard, from the home page and from /apply's list`, async ({
		browser
	}, testInfo) => {
		const { say, path } = wordsOf(locale);
		const page = await pageAs(browser, portal, privateKeyToAccount(generatePrivateKey()), { locale });
		const name = `${locale} Ada`;

		// The home page names the open programmes (filled in by the browser, from GET /api/programs).
		await page.goto(`${portal.url}${path('/')}`);
		await expect(page.getByRole('heading', { level: 2, name: say('home_programs_heading') })).toBeVisible();
		const toBuilders = page.getByRole('link', { name: builders[locale] });
		await expect(toBuilders).toBeVisible();
		await tabTo(page, toBuilders);
		await page.keyboard.press('Enter');
		await expect(page).toHaveURL(`${portal.url}${path('/apply/builders')}`);
		await expect(page.getByText(builders[locale], { exact: true })).toBeVisible();
		await screenshots(page, testInfo, `apply-program-${locale}`);
		await fillAndSubmit(page, say, name, 'I ship docs every week.');

		// /apply lists the open programmes, Builders with this member's application; on to Stewards.
		await page.goto(`${portal.url}${path('/apply')}`);
		await expect(page.getByRole('heading', { level: 1, name: say('apply_programs_heading') })).toBeVisible();
		await expect(
			page.getByRole('link', { name: say('apply_program_see', { program: builders[locale] }) })
		).toBeVisible();
		await screenshots(page, testInfo, `apply-programs-${locale}`);
		await tabTo(page, page.getByRole('link', { name: say('apply_program_go', { program: 'Stewards' }) }));
		await page.keyboard.press('Enter');
		await expect(page).toHaveURL(`${portal.url}${path('/apply/stewards')}`);
		await fillAndSubmit(page, say, name, 'I keep the lights on.');
		// The Stewards page names the Builders application too.
		await expect(page.getByRole('heading', { level: 2, name: say('apply_others_heading') })).toBeVisible();
		await expect(page.getByRole('link', { name: builders[locale] })).toBeVisible();

		// Both are in: the list says so for each.
		await page.goto(`${portal.url}${path('/apply')}`);
		await expect(page.getByText(say('apply_program_yours'))).toHaveCount(2);
		await page.context().close();
	});
