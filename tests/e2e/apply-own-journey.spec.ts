import type { Locator, Page } from '@playwright/test';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { getPage, postForm } from '../helpers/forms';
import type { RunningServer } from '../helpers/server';
import { png } from '../helpers/png';
import { signIn } from '../helpers/siwe';
import { PHONE, admin, expect, pageAs, screenshots, startPortal, tabTo, test } from './fixtures';
import { JOURNEY_LOCALES, wordsOf } from './words';

// Issue 58's "Done when" in Chromium, against the built server: an applicant who starts on a phone, closes
// the tab and finishes on a desktop with a PDF and an image, a reviewer who opens the files, one edit, a
// withdrawal (the files go with it); then the same kind of journey by keyboard alone, in English and in
// Arabic (right to left). The form has a conditional question and a file question (PDF and images).
let server: RunningServer;
const reviewer = privateKeyToAccount(generatePrivateKey());

/** A one-page PDF saying `text`, with a correct cross-reference table. */
function pdf(text: string): Buffer {
	const stream = `BT /F1 24 Tf 72 720 Td (${text}) Tj ET`;
	const objects = [
		'<< /Type /Catalog /Pages 2 0 R >>',
		'<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
		'<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
		`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
		'<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'
	];
	let out = '%PDF-1.4\n';
	const offsets: number[] = [];
	objects.forEach((body, i) => {
		offsets.push(out.length);
		out += `${i + 1} 0 obj\n${body}\nendobj\n`;
	});
	const xref = out.length;
	out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
	for (const at of offsets) out += `${String(at).padStart(10, '0')} 00000 n \n`;
	out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
	return Buffer.from(out, 'latin1');
}

const CV = { name: 'cv.pdf', mimeType: 'application/pdf', buffer: pdf('Curriculum vitae, E2E') };
const PHOTO = { name: 'photo.png', mimeType: 'image/png', buffer: png(48, [200, 40, 40]) };

test.beforeAll(async () => {
	server = await startPortal({ ADMIN_ADDRESSES: admin.address, REVIEWER_ADDRESSES: reviewer.address });
	// The form: how they work, the team's name only for a team, and their work as files (PDF and images).
	const saved = await postForm(
		`${server.url}/admin/form?/save`,
		{
			questionCount: '3',
			'questions.0.key': 'track',
			'questions.0.label': 'How do you work?',
			'questions.0.type': 'single_choice',
			'questions.0.required': 'on',
			'questions.0.options': 'Solo\nTeam',
			'questions.1.key': 'team',
			'questions.1.label': 'Your team’s name',
			'questions.1.type': 'short_text',
			'questions.1.required': 'on',
			'questions.1.showIfKey': 'track',
			'questions.1.showIfEquals': 'Team',
			'questions.2.key': 'work',
			'questions.2.label': 'Your work',
			'questions.2.type': 'file',
			'questions.2.accept': ['application/pdf', 'image/png', 'image/jpeg', 'image/webp'],
			'questions.2.files': '3',
			'questions.2.size': '2'
		},
		{ cookie: await signIn(server.url, admin) }
	);
	expect(saved.status).toBe(303);
});
test.afterAll(async () => {
	await server?.stop();
});

/** The review page's link to the application of `displayName`, opened by the reviewer (a page of their own). */
async function reviewerOn(page: Page, displayName: string): Promise<void> {
	await page.goto(`${server.url}/review`);
	await page.getByRole('link', { name: displayName }).click();
	await expect(page.getByRole('heading', { level: 1, name: displayName })).toBeVisible();
}

/** The id of the application of `displayName`, as the reviewer's queue links it. */
async function applicationIdOf(displayName: string): Promise<string> {
	const queue = await getPage(`${server.url}/review`, await signIn(server.url, reviewer));
	const id = new RegExp(`href="/review/([^"?#]+)"[^>]*>(?:<[^>]+>)*${displayName}`).exec(queue.body)?.[1];
	if (!id) throw new Error(`no application of ${displayName} in the reviewer's queue`);
	return id;
}

/** Focus is visible on the focused element: an outline (the house's :focus-visible ring) or a box shadow. */
async function expectVisibleFocus(target: Locator): Promise<void> {
	await expect(target).toBeFocused();
	const ring = await target.evaluate((el) => {
		const s = getComputedStyle(el);
		return { outline: s.outlineStyle, width: parseFloat(s.outlineWidth), shadow: s.boxShadow };
	});
	expect(ring.outline !== 'none' && ring.width >= 1 ? true : ring.shadow !== 'none', JSON.stringify(ring)).toBe(true);
}

test('started on a phone, finished on a desktop with a PDF and an image; a reviewer opens the files; edited once, withdrawn', async ({
	browser
}, testInfo) => {
	test.setTimeout(180_000);
	const applicant = privateKeyToAccount(generatePrivateKey());
	const name = 'Ada Files';

	// On a phone: the conditional question is hidden until "Team" is chosen; the draft saves by itself.
	const phone = await pageAs(browser, server, applicant, { viewport: PHONE });
	await phone.goto(`${server.url}/apply`);
	const team = phone.getByLabel('Your team’s name');
	await expect(team).toBeHidden();
	await phone.getByLabel('Display name').fill(name);
	await phone.getByLabel('Motivation').fill('Started on the train, PHONE-58.');
	await phone.getByRole('radio', { name: 'Team' }).check();
	await expect(team).toBeVisible();
	await team.fill('The Tram Crew');
	await expect(phone.getByText(/Saved at \d{1,2}:\d{2}/)).toBeVisible({ timeout: 15_000 });
	await phone.context().close();

	// On a desktop, the same member: the draft from the server, the condition followed.
	const desktop = await pageAs(browser, server, applicant);
	await desktop.goto(`${server.url}/apply`);
	await expect(desktop.getByLabel('Display name')).toHaveValue(name);
	await expect(desktop.getByLabel('Motivation')).toHaveValue('Started on the train, PHONE-58.');
	await expect(desktop.getByRole('radio', { name: 'Team' })).toBeChecked();
	const teamNow = desktop.getByLabel('Your team’s name');
	await expect(teamNow).toHaveValue('The Tram Crew');
	await expect(desktop.getByText(/Saved at \d{1,2}:\d{2}/)).toBeVisible();
	// Solo hides the team's name, Team shows it again with what was typed.
	await desktop.getByRole('radio', { name: 'Solo' }).check();
	await expect(teamNow).toBeHidden();
	await desktop.getByRole('radio', { name: 'Team' }).check();
	await expect(teamNow).toBeVisible();
	await expect(teamNow).toHaveValue('The Tram Crew');

	// A PDF and a PNG: their names shown, the upload's progress while it goes (the answer held back a moment).
	await desktop.getByLabel('Your work').setInputFiles([CV, PHOTO]);
	await expect(desktop.getByText('Chosen: cv.pdf, photo.png')).toBeVisible();
	await desktop.route(`${server.url}/apply`, async (route) => {
		if (route.request().method() === 'POST') await new Promise((done) => setTimeout(done, 1500));
		await route.continue();
	});
	await desktop.getByRole('button', { name: 'Submit application' }).click();
	await expect(desktop.getByRole('status').getByText(/Sending… \d{1,3}%/)).toBeVisible();
	await expect(desktop.getByText('Thank you: your application was received.')).toBeVisible();
	await desktop.unroute(`${server.url}/apply`);
	const mine = desktop.getByRole('article');
	await expect(mine.getByText('Waiting for review').first()).toBeVisible();
	await expect(mine).toContainText('The Tram Crew');
	await expect(mine.getByRole('link', { name: 'Download cv.pdf' })).toHaveAttribute('href', /^\/files\/[0-9a-f-]{36}$/);
	await expect(mine.getByRole('link', { name: 'Download photo.png' })).toBeVisible();
	// The draft went with the submission: nothing of it is offered any more.
	await expect(desktop.getByText(/Saved at/)).toHaveCount(0);

	// A reviewer opens the application and its files.
	const review = await pageAs(browser, server, reviewer);
	await reviewerOn(review, name);
	const cvLink = review.getByRole('link', { name: 'Download cv.pdf' });
	const photoLink = review.getByRole('link', { name: 'Download photo.png' });
	const hrefs = [await cvLink.getAttribute('href'), await photoLink.getAttribute('href')] as string[];
	for (const href of hrefs) expect(href).toMatch(/^\/files\/[0-9a-f-]{36}$/);
	for (const [href, bytes, type] of [
		[hrefs[0]!, CV.buffer, 'application/pdf'],
		[hrefs[1]!, PHOTO.buffer, 'image/png']
	] as const) {
		const file = await review.request.get(`${server.url}${href}`);
		expect(file.status()).toBe(200);
		expect(file.headers()['content-type']).toBe(type);
		expect(file.headers()['content-disposition']).toMatch(/^attachment; filename="(cv\.pdf|photo\.png)"/);
		expect(file.headers()['content-security-policy']).toMatch(/^sandbox\b/);
		expect(file.headers()['x-content-type-options']).toBe('nosniff');
		expect(file.headers()['cache-control']).toBe('private, no-store');
		expect(Buffer.from(await file.body()).equals(bytes)).toBe(true);
	}
	// Sizes as a person reads them (a file of a few hundred bytes is not "0 MiB").
	await expect(review.locator('.files li').first()).toContainText(/cv\.pdf \(\d+ bytes\)/);
	// The download itself: the browser saves it under its name, it does not open it.
	const [download] = await Promise.all([review.waitForEvent('download'), cvLink.click()]);
	expect(download.suggestedFilename()).toBe('cv.pdf');
	// Previews: the image as an image (decoded), the PDF drawn in a frame sandboxed to scripts alone
	// (tests/e2e/pdf-preview.spec.ts looks inside it); the PDF itself stays an attachment.
	const image = review.getByRole('img', { name: 'Preview of photo.png' });
	await image.scrollIntoViewIfNeeded();
	await expect(image).toHaveAttribute('src', `${hrefs[1]}?preview`);
	await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(48);
	const frame = review.locator('iframe[title="Preview of cv.pdf"]');
	await expect(frame).toHaveAttribute('sandbox', 'allow-scripts');
	await expect(frame).toHaveAttribute('data-drawn', 'true', { timeout: 30_000 });
	const preview = await review.request.get(`${server.url}${hrefs[0]}?preview`);
	expect(preview.headers()['content-disposition']).toMatch(/^attachment/);
	expect(preview.headers()['content-security-policy']).toBe('sandbox');
	await screenshots(review, testInfo, 'review-files');

	// The applicant edits once: the change shows, the files stay.
	await desktop.getByRole('link', { name: 'Edit your application' }).click();
	await expect(desktop.getByRole('heading', { name: 'Edit your application' })).toBeVisible();
	// The files already sent are named; left alone, they stay.
	await expect(desktop.getByText('Already sent: cv.pdf, photo.png. Choose files only to replace them.')).toBeVisible();
	await screenshots(desktop, testInfo, 'apply-edit-files');
	await desktop.getByLabel('Motivation').fill('Edited once from the desk, EDITED-58.');
	await desktop.getByRole('button', { name: 'Save changes' }).click();
	await expect(desktop.getByText('Your changes are saved.')).toBeVisible();
	await expect(mine).toContainText('EDITED-58');
	await expect(mine.getByText('Edited before review.')).toBeVisible();
	await expect(mine.getByRole('link', { name: 'Download cv.pdf' })).toHaveAttribute('href', hrefs[0]!);
	await expect(mine.getByRole('link', { name: 'Download photo.png' })).toHaveAttribute('href', hrefs[1]!);

	// Withdrawn with a reason: said so, and the form offered again.
	await desktop.getByText('Withdraw this application').click();
	await desktop.getByLabel('Reason (optional)').fill('Joining another cohort');
	await desktop.getByRole('button', { name: 'Withdraw application' }).click();
	await expect(desktop.getByText('Your application is withdrawn.')).toBeVisible();
	await expect(desktop.getByText('You withdrew this application.')).toBeVisible();
	await expect(desktop.getByRole('heading', { name: 'Apply again' })).toBeVisible();
	// Its files went with it: the reviewer's links now lead nowhere.
	for (const href of hrefs) {
		expect((await review.request.get(`${server.url}${href}`)).status()).toBe(404);
		expect((await desktop.request.get(`${server.url}${href}?preview`)).status()).toBe(404);
	}
	await review.context().close();
	await desktop.context().close();
});

test('the builder’s “Show only if” of the team’s name, in a form with a file question', async ({
	browser
}, testInfo) => {
	const page = await pageAs(browser, server, admin);
	await page.goto(`${server.url}/admin/form`);
	await page.waitForFunction(() => document.querySelector('button[value="add"]') !== null);
	await page.locator('.questions .item').nth(1).locator(':scope > details > summary').click();
	await expect(page.locator('[name="questions.1.showIfKey"]')).toHaveValue('track');
	await expect(page.locator('select[name="questions.1.showIfEquals"]')).toHaveValue('Team');
	await expect(page.locator('[name="questions.1.showIfKey"]')).toBeVisible();
	await screenshots(page, testInfo, 'admin-form-show-if-files');
	await page.context().close();
});

/** Types `text` into the field Tab reaches as `target`. */
async function typeInto(page: Page, target: Locator, text: string): Promise<void> {
	await tabTo(page, target);
	await expectVisibleFocus(target);
	await page.keyboard.type(text);
}

for (const locale of JOURNEY_LOCALES)
	test(`${locale}: by keyboard alone: fields, a file, the draft saved, submitted, locked once voted on, withdrawn`, async ({
		browser
	}, testInfo) => {
		test.setTimeout(180_000);
		const { say, path, next, literal } = wordsOf(locale);
		const applicant: PrivateKeyAccount = privateKeyToAccount(generatePrivateKey());
		const name = `Keys ${locale.toUpperCase()}`;
		const page = await pageAs(browser, server, applicant, { locale });
		await page.goto(`${server.url}${path('/apply')}`);
		await expect(page.locator('html')).toHaveAttribute('dir', locale === 'ar' ? 'rtl' : 'ltr');
		await expect(page.getByRole('heading', { level: 1, name: say('apply_heading') })).toBeVisible();

		await typeInto(page, page.getByRole('textbox', { name: say('field_display_name') }), name);
		await typeInto(page, page.getByRole('textbox', { name: say('field_motivation') }), 'Typed with keys, KEYS-58.');
		const solo = page.getByRole('radio', { name: 'Solo' });
		await tabTo(page, solo);
		await expectVisibleFocus(solo);
		await page.keyboard.press('Space');
		await page.keyboard.press(next);
		await expect(page.getByRole('radio', { name: 'Team' })).toBeChecked();
		const team = page.getByRole('textbox', { name: 'Your team’s name' });
		await page.keyboard.press('Tab');
		await expectVisibleFocus(team);
		await page.keyboard.type('Keyboard Club');
		// The file input: focused by Tab, the files set as a file chooser would.
		const work = page.locator('input[type="file"][name="answers.work"]');
		await tabTo(page, work);
		await expectVisibleFocus(work);
		await work.setInputFiles([PHOTO]);
		await expect(page.getByText(say('apply_file_chosen', { names: 'photo.png' }))).toBeVisible();
		// The autosave, said in the page's language.
		const saved = new RegExp(literal(say('apply_draft_saved_at', { time: '@' })).source.replace('@', '.+'));
		await expect(page.getByText(saved)).toBeVisible({ timeout: 15_000 });
		if (locale !== 'en') await expect(page.getByText(/Saved at/)).toHaveCount(0);
		await screenshots(page, testInfo, `apply-draft-saved-${locale}`);

		// Submitted with Enter on the focused Submit button.
		const submit = page.getByRole('button', { name: say('apply_submit_button') });
		await tabTo(page, submit);
		await expectVisibleFocus(submit);
		await page.keyboard.press('Enter');
		await expect(page.getByText(say('apply_received'))).toBeVisible();
		await expect(page.getByRole('link', { name: say('apply_edit_link') })).toBeVisible();
		await screenshots(page, testInfo, `apply-pending-edit-${locale}`);

		// A reviewer votes: the page says, in its language, why it can no longer be edited.
		const voted = await postForm(
			`${server.url}/review/${await applicationIdOf(name)}?/vote`,
			{ vote: 'approve' },
			{ cookie: await signIn(server.url, reviewer) }
		);
		expect(voted.status).toBe(303);
		await page.reload();
		await expect(page.getByText(say('apply_locked_voted'))).toBeVisible();
		await expect(page.getByRole('link', { name: say('apply_edit_link') })).toHaveCount(0);
		if (locale !== 'en') await expect(page.getByText(/no longer be edited/)).toHaveCount(0);
		await screenshots(page, testInfo, `apply-locked-${locale}`);

		// Withdraw, reached by Tab: the disclosure opened with Enter, a reason typed, the button pressed with Space.
		const disclosure = page.locator('summary', { hasText: say('apply_withdraw_heading') });
		await tabTo(page, disclosure);
		await expectVisibleFocus(disclosure);
		await page.keyboard.press('Enter');
		await typeInto(page, page.getByRole('textbox', { name: say('apply_withdraw_reason_label') }), 'Not this round');
		const withdraw = page.getByRole('button', { name: say('apply_withdraw_button') });
		await tabTo(page, withdraw);
		await expectVisibleFocus(withdraw);
		await page.keyboard.press('Space');
		await expect(page.getByText(say('apply_withdrawn'))).toBeVisible();
		await expect(page.getByText(say('apply_summary_withdrawn'))).toBeVisible();
		await expect(page.getByRole('heading', { name: say('apply_heading_again') })).toBeVisible();
		if (locale !== 'en') await expect(page.getByText(/withdrawn|withdrew/i)).toHaveCount(0);
		await screenshots(page, testInfo, `apply-withdrawn-${locale}`);
		await page.context().close();
	});
