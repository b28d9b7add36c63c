import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { getPage, postForm } from '../helpers/forms';
import { startPortalOnOwnDatabase, type OwnDatabasePortal } from '../helpers/own-database';
import { signIn } from '../helpers/siwe';
import { admin, expect, pageAs, screenshots, tabTo, test } from './fixtures';
import { JOURNEY_LOCALES, wordsOf } from './words';

// Issue 59, the community's voice, by keyboard alone, in English and in Arabic: an admin writes the
// Spanish words of "approved" on /admin/messages (the preview follows the typing) and saves them; a
// Spanish applicant approved afterwards reads those words in /es/inbox. Then the admin writes to the
// applicants the review table's filter shows, passes the confirm step that says how many will be told,
// and the applicant's inbox has the message. Each page axe clean, phone and desktop.
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
	test(`${locale}: an admin writes the Spanish "approved" message and a message to the filtered applicants by keyboard; a Spanish applicant reads both in /es/inbox`, async ({
		browser
	}, testInfo) => {
		const { say } = wordsOf(locale);
		const prefix = locale === 'en' ? '' : `/${locale}`;
		const tag = `${locale}${Date.now().toString(36)}`;
		// A Spanish applicant: signed in, their pages visited in Spanish (members.locale), applied.
		const applicant = privateKeyToAccount(generatePrivateKey());
		const cookie = await signIn(portal.url, applicant);
		expect((await getPage(`${portal.url}/es/apply`, cookie)).status).toBe(200);
		const name = `Ana ${tag}`;
		expect(
			(await postForm(`${portal.url}/es/apply`, { displayName: name, motivation: 'Escribo documentación' }, { cookie }))
				.status
		).toBe(303);

		const page = await pageAs(browser, portal, admin);
		await page.goto(`${portal.url}${prefix}/admin/messages`);
		await expect(page.locator('html')).toHaveAttribute('dir', locale === 'ar' ? 'rtl' : 'ltr');
		// The table's link for "approved" in Spanish, by Tab; Enter opens its editor.
		const cell = page.locator('a[href*="event=review.approved"][href*="locale=es"]');
		await tabTo(page, cell, 120);
		await page.keyboard.press('Enter');
		await expect(page).toHaveURL(/event=review\.approved&locale=es/);
		await tabTo(page, '[name="subject"]', 80);
		await page.keyboard.press('ControlOrMeta+A');
		await page.keyboard.type(`¡Bienvenida, {name}! ${tag}`);
		await tabTo(page, '[name="body"]');
		await page.keyboard.press('ControlOrMeta+A');
		await page.keyboard.type('Tu solicitud fue **aprobada**.\n\n[Tu solicitud]({link})');
		// The preview follows the typing (the sample name filled in).
		const inboxPreview = page.getByRole('article', { name: say('messages_preview_inbox') });
		await expect(inboxPreview).toContainText(`${tag}`);
		await expect(inboxPreview.locator('strong')).toHaveText('aprobada');
		await tabTo(page, page.getByRole('button', { name: say('messages_save') }));
		await page.keyboard.press('Enter');
		await expect(page.getByText(say('messages_saved'))).toBeVisible();
		await screenshots(page, testInfo, `messages-${locale}`);

		// The applicant approved: they read the community's Spanish words, their name filled in.
		const id = /href="\/admin\/applications\/([0-9a-f-]{36})"/.exec(
			(await getPage(`${portal.url}/admin?q=${encodeURIComponent(name)}`, await signIn(portal.url, admin))).body
		)![1]!;
		const adminCookie = await signIn(portal.url, admin);
		expect(
			(
				await postForm(
					`${portal.url}/admin/applications/${id}?/transition`,
					{ field: 'review', to: 'approved', reason: '', confirm: 'yes' },
					{ cookie: adminCookie }
				)
			).status
		).toBe(303);
		const own = await pageAs(browser, portal, applicant);
		await own.goto(`${portal.url}/es/inbox`);
		await expect(own.getByText(`¡Bienvenida, ${name}! ${tag}`).first()).toBeVisible();
		await expect(own.locator('html')).toHaveAttribute('lang', 'es');

		// Writing to the applicants the filter shows: the confirm step says how many, then it is sent.
		await page.goto(`${portal.url}${prefix}/admin?q=${encodeURIComponent(name)}`);
		const summary = page.locator('details.message > summary');
		await tabTo(page, summary, 120);
		await page.keyboard.press('Enter');
		await tabTo(page, 'details.message [name="subject"]');
		await page.keyboard.type(`Reunión ${tag}`);
		await tabTo(page, 'details.message [name="body"]');
		await page.keyboard.type('Nos vemos el **martes**, {name}.');
		await tabTo(page, page.getByRole('button', { name: say('admin_message_next') }));
		await page.keyboard.press('Enter');
		await expect(page.getByText(say('admin_message_confirm', { count: '1' }))).toBeVisible();
		const send = page.getByRole('button', { name: say('admin_message_send', { count: '1' }) });
		await tabTo(page, send, 80);
		await page.keyboard.press('Enter');
		await expect(page.getByText(say('admin_message_sent', { count: '1' }))).toBeVisible();

		await own.goto(`${portal.url}/es/inbox`);
		await expect(own.getByText(`Reunión ${tag}`).first()).toBeVisible();
		await expect(own.getByText(`Nos vemos el martes, ${name}.`)).toBeVisible();
		await page.context().close();
		await own.context().close();
	});
