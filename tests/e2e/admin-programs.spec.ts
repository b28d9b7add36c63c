import type { RunningServer } from '../helpers/server';
import { admin, expect, pageAs, screenshots, startPortal, tabTo, test } from './fixtures';
import { JOURNEY_LOCALES, wordsOf } from './words';

// Issue 57: an admin makes a programme and its first round on /admin/programs with the keyboard alone
// (no clicks, no element.focus()), in English and in Arabic (right to left): a refused round is announced
// and its field focused with its message; the saved ones are announced and listed, times in the reader's
// language with the community's zone named.
let server: RunningServer;

test.beforeAll(async () => {
	server = await startPortal({ ADMIN_ADDRESSES: admin.address, COMMUNITY_TIME_ZONE: 'Europe/Berlin' });
});
test.afterAll(async () => {
	await server?.stop();
});

for (const locale of JOURNEY_LOCALES) {
	const { say, path } = wordsOf(locale);
	const slug = `builders-${locale}`;
	const name = locale === 'en' ? 'Builders' : 'البنّاؤون';

	test(`${locale}: /admin/programs: a programme and a round, by keyboard alone`, async ({ browser }, testInfo) => {
		const page = await pageAs(browser, server, admin, { locale });
		await page.goto(`${server.url}${path('/admin/programs')}`);
		await expect(page.getByRole('heading', { level: 1, name: say('admin_nav_programs') })).toBeVisible();
		// The admin's sections name this page as the current one.
		await expect(page.getByRole('link', { name: say('admin_nav_programs'), exact: true })).toHaveAttribute(
			'aria-current',
			'page'
		);

		// The programme: slug, name, description, then Save.
		const slugField = page.getByRole('textbox', { name: say('program_field_slug'), exact: true });
		await tabTo(page, slugField);
		await page.keyboard.type(slug);
		await page.keyboard.press('Tab');
		await expect(page.getByRole('textbox', { name: say('program_field_name'), exact: true })).toBeFocused();
		await page.keyboard.type(name);
		await page.keyboard.press('Tab');
		await page.keyboard.type('People who ship');
		await tabTo(page, page.getByRole('button', { name: say('admin_program_save') }), 4);
		await page.keyboard.press('Enter');
		await expect(page.getByRole('status').filter({ hasText: say('admin_program_saved') })).toBeVisible();
		const programme = page.getByRole('article', { name: new RegExp(name) });
		await expect(programme).toContainText(say('admin_program_no_rounds'));

		// Its "Add a round" link, then the round form with the programme chosen.
		const addRound = page.getByRole('link', { name: say('admin_program_add_round_label', { name }) });
		await tabTo(page, addRound);
		await page.keyboard.press('Enter');
		await expect(page).toHaveURL(new RegExp(`add=${slug}#round-form$`));
		await expect(page.getByRole('combobox', { name: say('round_field_program'), exact: true })).toHaveValue(slug);
		const roundName = page.getByRole('textbox', { name: say('round_field_name'), exact: true });
		await tabTo(page, roundName, 20);
		await page.keyboard.type('Cohort 1');
		await page.keyboard.press('Tab');
		await page.keyboard.type('2027-03-01T09:00');
		await page.keyboard.press('Tab');
		// Closes before it opens: refused, announced, and focus on the field that says why.
		await page.keyboard.type('2027-02-01T09:00');
		const saveRound = page.getByRole('button', { name: say('admin_round_save') });
		await tabTo(page, saveRound, 6);
		await page.keyboard.press('Enter');
		await expect(page.getByRole('alert')).toContainText(say('form_invalid'));
		const closes = page.getByRole('textbox', { name: new RegExp(`^${say('round_field_closes')}`) });
		await expect(closes).toBeFocused();
		await expect(closes).toHaveAccessibleDescription(new RegExp(say('round_closes_before_opens')));
		await screenshots(page, testInfo, `admin-programs-refused-${locale}`);

		await page.keyboard.press('ControlOrMeta+a');
		await page.keyboard.type('2027-03-31T18:00');
		await tabTo(page, saveRound, 6);
		await page.keyboard.press('Enter');
		await expect(page.getByRole('status').filter({ hasText: say('admin_round_saved') })).toBeVisible();
		await expect(programme.getByRole('row', { name: /Cohort 1/ })).toContainText('(Europe/Berlin)');
		await expect(programme.getByRole('row', { name: /Cohort 1/ })).toContainText(say('round_state_upcoming'));
		await screenshots(page, testInfo, `admin-programs-${locale}`);
	});
}
