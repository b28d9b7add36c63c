import type { Page } from '@playwright/test';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { postForm } from '../helpers/forms';
import { startPortalOnOwnDatabase, type OwnDatabasePortal } from '../helpers/own-database';
import { signIn } from '../helpers/siwe';
import { admin, expect, pageAs, screenshots, tabTo, test } from './fixtures';
import { JOURNEY_LOCALES, wordsOf } from './words';

// Issue 59, keyboard alone: an owner adds an admin of one programme on /admin/team, who signs in and
// sees only that programme's applications; the owner removes them, and their next request is the
// unknown path's 404, without signing out. An owner names a team member (POST /admin/team?/name) and
// sees the name on the team page; a name with a text-direction character, or too long, is refused with
// the error naming the field, and nothing is saved. In English and in Arabic, right to left; each page
// axe clean, phone and desktop, light and dark.
let portal: OwnDatabasePortal;

test.beforeAll(async () => {
	test.setTimeout(180_000);
	portal = await startPortalOnOwnDatabase({ ADMIN_ADDRESSES: admin.address });
	await portal.query(
		`with b as (insert into programs (slug, name, translations)
		   values ('builders', 'Builders', '{"ar": {"name": "البنّاؤون"}}') returning id)
		 insert into rounds (program_id, name, opens_at) select id, 'Cohort 1', now() - interval '1 day' from b`
	);
	// One application to Builders, one to membership (the default programme).
	for (const [path, name] of [
		['/apply/builders', 'Builder Bo'],
		['/apply', 'Member Mo']
	] as const) {
		const cookie = await signIn(portal.url, privateKeyToAccount(generatePrivateKey()));
		const sent = await postForm(`${portal.url}${path}`, { displayName: name, motivation: 'Hello' }, { cookie });
		expect(sent.status).toBe(303);
	}
});
test.afterAll(async () => {
	await portal?.stop();
});

test.describe.configure({ timeout: 240_000 });

/** Picks `value` in the focused select with the arrow keys alone (Home, then Down until it is chosen). */
async function choose(page: Page, select: string, value: string) {
	await page.keyboard.press('Home');
	for (let i = 0; i < 10 && (await page.locator(select).inputValue()) !== value; i++)
		await page.keyboard.press('ArrowDown');
	await expect(page.locator(select)).toHaveValue(value);
}

for (const locale of JOURNEY_LOCALES)
	test(`${locale}: an owner adds an admin of one programme by keyboard, who sees only it; removed, their next request is the 404`, async ({
		browser
	}, testInfo) => {
		const { say } = wordsOf(locale);
		const prefix = locale === 'en' ? '' : `/${locale}`;
		const newcomer = privateKeyToAccount(generatePrivateKey());
		const address = newcomer.address.toLowerCase();

		const owner = await pageAs(browser, portal, admin);
		await owner.goto(`${portal.url}${prefix}/admin/team`);
		await expect(owner.locator('html')).toHaveAttribute('dir', locale === 'ar' ? 'rtl' : 'ltr');
		await tabTo(owner, '[name="address"]');
		await owner.keyboard.type(address);
		await tabTo(owner, '#team-role');
		await choose(owner, '#team-role', 'admin');
		await tabTo(owner, '#team-program');
		await choose(owner, '#team-program', 'builders');
		await tabTo(owner, owner.getByRole('button', { name: say('team_add') }));
		await owner.keyboard.press('Enter');
		await expect(owner.getByText(say('team_done_added'))).toBeVisible();
		// Admin pages name a programme in the page's locale where the community translated it (issue 61).
		await expect(owner.getByRole('row').filter({ hasText: address })).toContainText(
			locale === 'ar' ? 'البنّاؤون' : 'Builders'
		);
		await screenshots(owner, testInfo, `team-${locale}`);

		// The new admin, signed in once, sees Builders' application and not membership's.
		const scoped = await pageAs(browser, portal, newcomer);
		await scoped.goto(`${portal.url}${prefix}/admin`);
		await expect(scoped.getByRole('link', { name: 'Builder Bo' })).toBeVisible();
		await expect(scoped.getByRole('link', { name: 'Member Mo' })).toHaveCount(0);

		// The owner removes them by keyboard: Tab to the row's Remove, Enter.
		await tabTo(owner, `form[action="?/remove"]:has(input[value="${address}"]) button`, 120);
		await owner.keyboard.press('Enter');
		await expect(owner.getByText(say('team_done_removed'))).toBeVisible();
		await expect(owner.getByRole('row').filter({ hasText: address })).toHaveCount(0);

		// Their next request, within a second, is the unknown path's 404; the session is the same.
		await expect
			.poll(async () => (await scoped.goto(`${portal.url}${prefix}/admin`))?.status(), { timeout: 5_000 })
			.toBe(404);
		await owner.context().close();
		await scoped.context().close();
	});

for (const locale of JOURNEY_LOCALES)
	test(`${locale}: an owner names a team member by keyboard and sees the name; a name with a direction character or too long is refused naming the field`, async ({
		browser
	}, testInfo) => {
		const { say, literal } = wordsOf(locale);
		const prefix = locale === 'en' ? '' : `/${locale}`;
		/** The longest display name (TEAM_NAME_MAX, src/lib/server/team/names.ts). */
		const max = 80;
		const reviewer = privateKeyToAccount(generatePrivateKey()).address.toLowerCase();
		const added = await postForm(
			`${portal.url}/admin/team?/add`,
			{ address: reviewer, role: 'reviewer', program: '' },
			{ cookie: await signIn(portal.url, admin) }
		);
		expect(added.status).toBe(303);
		const name = locale === 'ar' ? 'رنا المراجِعة' : 'Rana Reviewer';

		const owner = await pageAs(browser, portal, admin);
		await owner.goto(`${portal.url}${prefix}/admin/team`);
		await expect(owner.locator('html')).toHaveAttribute('dir', locale === 'ar' ? 'rtl' : 'ltr');
		const form = 'form[action="?/name"]';
		const row = owner.getByRole('row').filter({ hasText: reviewer });
		const field = owner.locator(`${form} [name="displayName"]`);
		/** Tab to the name field, type `typed` over what it holds, Tab to whose name, type the address, Enter. */
		async function nameByKeyboard(typed: string) {
			await tabTo(owner, `${form} [name="displayName"]`);
			await owner.keyboard.press('ControlOrMeta+A');
			await owner.keyboard.type(typed);
			await tabTo(owner, `${form} [name="address"]`);
			await owner.keyboard.press('ControlOrMeta+A');
			await owner.keyboard.type(reviewer);
			await owner.keyboard.press('Enter');
		}

		await nameByKeyboard(name);
		await expect(owner.getByText(say('team_done_named'))).toBeVisible();
		// The team page names them, with the address beside the name.
		await expect(row).toContainText(name);
		await screenshots(owner, testInfo, `team-named-${locale}`);

		// A text-direction character (U+202E, which would turn the words around) is refused naming the field.
		const label = say('team_name_label');
		await nameByKeyboard(`${name}\u202e`);
		const invisible = say('field_invisible', { label });
		// Said at the field, and in the page's summary of what was refused.
		await expect(owner.locator(form).getByText(invisible)).toBeVisible();
		await expect(owner.getByRole('listitem').filter({ hasText: invisible })).toBeVisible();
		await expect(field).toHaveAttribute('aria-invalid', 'true');
		await expect(field).toHaveAccessibleDescription(literal(invisible));
		await screenshots(owner, testInfo, `team-name-refused-${locale}`);

		// Too long: one character over the limit; refused naming the field.
		await nameByKeyboard('n'.repeat(max + 1));
		const tooLong = say('field_too_long', { label, max: String(max) });
		await expect(owner.locator(form).getByText(tooLong)).toBeVisible();
		await expect(field).toHaveAccessibleDescription(literal(tooLong));
		await expect(field).toHaveAttribute('aria-invalid', 'true');

		// Nothing of either was saved: the team page still shows the name given first.
		await owner.goto(`${portal.url}${prefix}/admin/team`);
		await expect(row).toContainText(name);
		await expect(row).not.toContainText('n'.repeat(max));
		await owner.context().close();
	});

// Issue 61: every error summary lists every refused field as a link to it. On /ar/admin/team the summary's
// items were plain text: a bad address is refused, its item is a link to the address field, and following
// it puts focus there.
test('ar: a refused address is a link in the error summary that takes focus to the field', async ({ browser }) => {
	const { say } = wordsOf('ar');
	const owner = await pageAs(browser, portal, admin);
	await owner.goto(`${portal.url}/ar/admin/team`);
	const field = owner.locator('form[action="?/add"] [name="address"]');
	await field.fill('not-an-address');
	await owner.getByRole('button', { name: say('team_add') }).click();
	const summary = owner.getByRole('alert');
	await expect(summary).toBeVisible();
	const item = summary.getByRole('link', { name: say('admin_wallet_address') });
	await expect(field).toHaveAttribute('aria-invalid', 'true');
	await expect(item).toHaveAttribute('href', `#${await field.getAttribute('id')}`);
	await item.click();
	await expect(field).toBeFocused();
	// By keyboard too: Enter on the link.
	await item.focus();
	await expect(field).not.toBeFocused();
	await owner.keyboard.press('Enter');
	await expect(field).toBeFocused();
	await owner.context().close();
});
