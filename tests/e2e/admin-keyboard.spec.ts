import type { Page } from '@playwright/test';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { RunningServer } from '../helpers/server';
import { signIn } from '../helpers/siwe';
import { admin, expect, pageAs, screenshots, startPortal, tabTo, test } from './fixtures';
import { JOURNEY_LOCALES, wordsOf, type JourneyLocale } from './words';

// Issue 31: both admin screens with the keyboard alone (no clicks, no element.focus()), and what a
// screen reader is given: every refusal in an alert or as the focused field's description, a confirm
// dialog that opens on Cancel, the browser's checks before the dialog, and a short way to the table.
// In English and in Arabic, right to left (issue 61), on one server: each run has its own applicants, and
// its browser speaks the run's language (so no offer of another language stands before the page).
let server: RunningServer;
const ids: Record<string, string> = {};
const applicants: Record<string, PrivateKeyAccount> = {};
/** The first letters of each run's applicants' names: a search for one run's rows finds none of the other's. */
const prefix: Record<JourneyLocale, string> = { en: 'Key', ar: 'Kay' };

/** A new member's application, straight through the form action; its id as the review table links it. */
async function apply(displayName: string): Promise<PrivateKeyAccount> {
	const account = privateKeyToAccount(generatePrivateKey());
	const cookie = await signIn(server.url, account);
	const body = new URLSearchParams({ displayName, motivation: 'I would like to help with the docs.', contact: '' });
	await fetch(`${server.url}/apply`, {
		method: 'POST',
		body,
		headers: { cookie, origin: server.url, accept: 'text/html' },
		redirect: 'manual'
	});
	return account;
}

test.beforeAll(async () => {
	server = await startPortal({ ADMIN_ADDRESSES: admin.address });
	for (const locale of JOURNEY_LOCALES)
		for (const name of ['row 0', 'row 1', 'detail', 'conflict', 'ask'])
			applicants[prefix[locale] + name] = await apply(prefix[locale] + name);
	const cookie = await signIn(server.url, admin);
	for (const locale of JOURNEY_LOCALES) {
		const html = await (await fetch(`${server.url}/admin?q=${prefix[locale]}`, { headers: { cookie } })).text();
		for (const [, id, name] of html.matchAll(/href="\/admin\/applications\/([0-9a-f-]{36})">(?:<bdi>)?([^<]+)</g))
			ids[name!] = id!;
	}
});
test.afterAll(async () => {
	await server?.stop();
});

/** The review state of an application as the server has it now (the first badge of its English page's Status list). */
async function reviewOf(page: Page, name: string): Promise<string> {
	const html = await (await page.request.get(`${server.url}/admin/applications/${ids[name]}`)).text();
	const badge = /aria-label="Status"[^]*?class="badge[^"]*">([^<]+)</.exec(html)?.[1];
	const words: Record<string, string> = {
		'Waiting for review': 'pending',
		'More information asked': 'needs info',
		Approved: 'approved',
		Rejected: 'rejected'
	};
	return (badge && words[badge.replace(/^Review: /, '')]) ?? 'unknown';
}

for (const locale of JOURNEY_LOCALES) {
	const { say, plural, path, literal } = wordsOf(locale);
	const p = prefix[locale];
	/** "Reason: …" as the browser refuses an empty reason for a move of review to `to`. */
	const reasonNeeded = (to: 'rejected') =>
		say('admin_problem_reason', {
			field: say('admin_field_review').toLocaleLowerCase(locale),
			state: say(`admin_state_${to}`)
		});
	/** What a field refuses when its text holds a control character. */
	const controlChars = (label: string) =>
		new RegExp(
			`${literal(say('field_control_chars', { label })).source}|${literal(say('field_control_chars_multiline', { label })).source}`
		);
	const reviewLegend = say('admin_move_legend', {
		field: say('admin_field_review'),
		state: say('application_badge_pending')
	});

	test(`${locale}: /admin: the first row is a few Tab presses from the page top, and a bulk move is checked, asked and announced`, async ({
		browser
	}, testInfo) => {
		const page = await pageAs(browser, server, admin, { locale });
		await page.goto(`${server.url}${path('/admin')}?q=${p}row`);
		const firstRow = page.getByRole('checkbox', { name: say('admin_select_row', { name: `${p}row 0` }) });
		await expect(firstRow).toBeVisible();
		// From the top of the page: Tab to "Skip to applications", Enter, Tab: the first row's checkbox. The
		// header's language switcher (issue 47) is one stop more than before.
		const skip = page.getByRole('link', { name: say('admin_skip_applications') });
		let presses = await tabTo(page, skip, 11);
		await page.keyboard.press('Enter');
		presses += await tabTo(page, firstRow, 1);
		testInfo.annotations.push({
			type: 'Tab presses from the top of /admin to the first row',
			description: `${presses}`
		});
		expect(presses).toBeLessThanOrEqual(11);

		// The row's own actions follow it: its checkbox (Space selects), then its link.
		await page.keyboard.press('Space');
		await expect(firstRow).toBeChecked();
		await expect(page.getByText(plural('admin_bulk_selected', 1))).toBeVisible();
		// The move's controls are just before the table: Shift+Tab to the button, then to Move.
		await page.keyboard.press('Shift+Tab');
		const applyButton = page.getByRole('button', { name: say('admin_bulk_apply') });
		await expect(applyButton).toBeFocused();
		await page.keyboard.press('Shift+Tab');
		const move = page.getByLabel(say('admin_bulk_move'), { exact: true });
		await expect(move).toBeFocused();
		await page.keyboard.press('ArrowDown'); // Approve → Reject
		await expect(move).toHaveValue('rejected');

		// No reason: the browser refuses it before any dialog, on the reason field, with its message.
		const reason = page.getByLabel(say('admin_reason'));
		// Past the reason and, for a rejection, the optional "Apply again from" date (four stops in Chromium).
		await tabTo(page, applyButton, 8);
		await page.keyboard.press('Enter');
		await expect(reason).toBeFocused();
		expect(await reason.evaluate((el: HTMLInputElement) => el.validationMessage)).toBe(reasonNeeded('rejected'));
		await expect(page.getByRole('dialog')).toBeHidden();

		// With a reason: the dialog asks, on Cancel; a second Enter cancels, nothing moves.
		await page.keyboard.type('Not active in the community yet.');
		await tabTo(page, applyButton, 8);
		await page.keyboard.press('Enter');
		const dialog = page.getByRole('dialog', {
			name: say('admin_confirm_question', {
				action: say('admin_confirm_reject', { who: plural('admin_application_count', 1) })
			})
		});
		await expect(dialog).toBeVisible();
		await expect(dialog.getByRole('button', { name: say('application_cancel') })).toBeFocused();
		await expect(dialog).toContainText(say('admin_final'));
		await expect(dialog).toContainText(say('admin_consequence_rejected_one'));
		await page.keyboard.press('Enter');
		await expect(dialog).toBeHidden();
		await expect(applyButton).toBeFocused();
		expect(await reviewOf(page, `${p}row 0`)).toBe('pending');
		await screenshots(page, testInfo, `admin-keyboard-table-${locale}`);

		// A refusal the browser cannot make (a control character in the reason): announced and focused.
		// Back past the date (four stops in Chromium: three fields and its picker) to the reason.
		for (let i = 0; i < 8 && !(await reason.evaluate((el) => el === document.activeElement)); i++)
			await page.keyboard.press('Shift+Tab');
		await expect(reason).toBeFocused();
		await page.keyboard.press('End');
		await page.keyboard.insertText('\u0007');
		await tabTo(page, applyButton, 8);
		await page.keyboard.press('Enter');
		await expect(dialog.getByRole('button', { name: say('application_cancel') })).toBeFocused();
		await page.keyboard.press('Tab');
		const confirm = say('admin_confirm_label', {
			action: say('admin_confirm_reject', { who: plural('admin_application_count', 1) })
		});
		await expect(dialog.getByRole('button', { name: confirm })).toBeFocused();
		await page.keyboard.press('Enter');
		await expect(page.getByRole('alert')).toContainText(say('form_invalid'));
		await expect(reason).toBeFocused();
		await expect(reason).toHaveAccessibleDescription(controlChars(say('admin_reason')));
		expect(await reviewOf(page, `${p}row 0`)).toBe('pending');
	});

	test(`${locale}: /admin: a bulk ask about one answer, by keyboard alone, reaches the applicant next to that answer`, async ({
		browser
	}) => {
		const page = await pageAs(browser, server, admin, { locale });
		await page.goto(`${server.url}${path('/admin')}?q=${p}ask`);
		const row = page.getByRole('checkbox', { name: say('admin_select_row', { name: `${p}ask` }) });
		await tabTo(page, row);
		await page.keyboard.press('Space');
		await expect(page.getByText(plural('admin_bulk_selected', 1))).toBeVisible();
		// Back to Move, then to the top of its list: "Ask for more information".
		const move = page.getByLabel(say('admin_bulk_move'), { exact: true });
		await page.keyboard.press('Shift+Tab');
		await page.keyboard.press('Shift+Tab');
		await expect(move).toBeFocused();
		await page.keyboard.press('Home');
		await expect(move).toHaveValue('needs_info');
		// The reason, then the asks: closed until Enter opens them, one box per answer.
		await page.keyboard.press('Tab');
		await expect(page.getByLabel(say('admin_reason'))).toBeFocused();
		await page.keyboard.type('Tell us a little more.');
		const asks = page.locator('details.asks > summary');
		await tabTo(page, asks, 3);
		await page.keyboard.press('Enter');
		const motivationAsk = page.getByRole('textbox', { name: say('admin_answer_motivation') });
		await tabTo(page, motivationAsk, 6);
		await page.keyboard.type('Which docs would you start with?');
		await tabTo(page, page.getByRole('button', { name: say('admin_bulk_apply') }), 10);
		await page.keyboard.press('Enter');
		// Not final, so no dialog: it is applied and announced.
		const asked = say('admin_done_sentence', {
			done: say('admin_done_asked', { who: plural('admin_application_count', 1) })
		});
		await expect(page.getByRole('status').filter({ hasText: asked })).toBeVisible();
		expect(await reviewOf(page, `${p}ask`)).toBe('needs info');

		// The applicant reads the ask beside their motivation, in the same language.
		const applicant = await pageAs(browser, server, applicants[`${p}ask`]!, { locale });
		await applicant.goto(`${server.url}${path('/apply')}`);
		await expect(applicant.getByRole('textbox', { name: say('field_motivation') })).toHaveAccessibleDescription(
			new RegExp(`${literal(say('form_reviewers_ask')).source}\\s*Which docs would you start with\\?`)
		);
	});

	test(`${locale}: the application page: the browser checks before the dialog, a double Enter moves nothing, refusals are announced`, async ({
		browser
	}, testInfo) => {
		const name = `${p}detail`;
		const page = await pageAs(browser, server, admin, { locale });
		await page.goto(`${server.url}${path(`/admin/applications/${ids[name]}`)}`);
		const review = page.getByRole('group', { name: reviewLegend });
		const reject = review.getByRole('button', { name: say('admin_action_reject') });
		const reason = review.getByLabel(say('admin_reason'));
		const presses = await tabTo(page, reject);
		testInfo.annotations.push({ type: 'Tab presses from the top of the page to Reject', description: `${presses}` });

		// Reject with an empty reason: refused by the browser, on the reason field; no dialog.
		await page.keyboard.press('Enter');
		await expect(reason).toBeFocused();
		expect(await reason.evaluate((el: HTMLTextAreaElement) => el.validationMessage)).toBe(reasonNeeded('rejected'));
		await expect(page.getByRole('dialog')).toBeHidden();

		// A malformed tx hash is not this form's: a review move carries none. A reason, then a double Enter.
		await page.keyboard.type('No reply to our questions.');
		// Past the optional "Apply again from" date (three fields in Chromium) and the buttons before Reject.
		await tabTo(page, reject, 8);
		await page.keyboard.press('Enter');
		await page.keyboard.press('Enter');
		await expect(page.getByRole('dialog')).toBeHidden();
		await expect(reject).toBeFocused();
		expect(await reviewOf(page, name)).toBe('pending');

		// The dialog states the consequence; the final button is one deliberate Tab away.
		await page.keyboard.press('Enter');
		const dialog = page.getByRole('dialog', {
			name: say('admin_confirm_question', { action: say('admin_confirm_reject', { who: name }) })
		});
		await expect(dialog).toHaveAccessibleDescription(
			new RegExp(`${literal(say('admin_consequence_rejected_one')).source}.*${literal(say('admin_final')).source}`)
		);
		await expect(dialog.getByRole('button', { name: say('application_cancel') })).toBeFocused();
		await screenshots(page, testInfo, `admin-keyboard-dialog-${locale}`);
		await page.keyboard.press('Tab');
		await page.keyboard.press('Enter');
		const done = say('admin_done_sentence', { done: say('admin_done_rejected', { who: name }) });
		await expect(page.getByRole('status').locator('p')).toContainText(done);
		await expect(page.getByRole('status').locator('p')).toBeFocused();
		expect(await reviewOf(page, name)).toBe('rejected');
	});

	test(`${locale}: the application page: a move another admin made first is announced in an alert`, async ({
		browser
	}, testInfo) => {
		const name = `${p}conflict`;
		const page = await pageAs(browser, server, admin, { locale });
		await page.goto(`${server.url}${path(`/admin/applications/${ids[name]}`)}`);
		const review = page.getByRole('group', { name: reviewLegend });
		const approve = review.getByRole('button', { name: say('admin_action_approve') });
		await tabTo(page, approve);
		// Meanwhile another admin approves it.
		const cookie = await signIn(server.url, admin);
		const body = new URLSearchParams({ field: 'review', to: 'approved', from: 'pending', confirm: 'yes' });
		const response = await fetch(`${server.url}/admin/applications/${ids[name]}?/transition`, {
			method: 'POST',
			body,
			headers: { cookie, origin: server.url, accept: 'text/html' },
			redirect: 'manual'
		});
		expect(response.status).toBe(303);
		await page.keyboard.press('Enter');
		await page.keyboard.press('Tab');
		await page.keyboard.press('Enter');
		const alert = review.getByRole('alert');
		await expect(alert).toHaveText(
			say('admin_refusal_stale', { field: say('admin_field_review'), state: say('admin_state_approved') })
		);
		await expect(approve).toBeFocused();
		await screenshots(page, testInfo, `admin-keyboard-conflict-${locale}`);
	});

	test(`${locale}: /checkin: a refused note is announced the same way (an alert, focus on the field it is about)`, async ({
		browser
	}) => {
		const page = await pageAs(browser, server, privateKeyToAccount(generatePrivateKey()), { locale });
		await page.goto(`${server.url}${path('/checkin')}`);
		const note = page.getByLabel(say('checkin_note_label'));
		await tabTo(page, note);
		await page.keyboard.insertText('hello\u0000');
		await tabTo(page, page.getByRole('button', { name: say('common_check_in') }), 2);
		await page.keyboard.press('Enter');
		await expect(page.getByRole('alert')).toContainText(say('form_invalid'));
		await expect(note).toBeFocused();
		await expect(note).toHaveAccessibleDescription(controlChars(say('checkin_note_label')));
		await expect(page.getByText(say('checkin_empty'))).toBeVisible();
	});

	test(`${locale}: /apply: a refused application is announced the same way, with what was typed kept`, async ({
		browser
	}) => {
		const page = await pageAs(browser, server, privateKeyToAccount(generatePrivateKey()), { locale });
		await page.goto(`${server.url}${path('/apply')}`);
		const displayName = page.getByLabel(say('field_display_name'));
		await tabTo(page, displayName);
		await page.keyboard.insertText('Ada\u0001');
		await page.keyboard.press('Tab');
		await page.keyboard.type('Compilers, and the docs.');
		await tabTo(page, page.getByRole('button', { name: say('apply_submit_button') }), 3);
		await page.keyboard.press('Enter');
		// The summary names the refused field and links to it.
		await expect(page.getByRole('alert')).toContainText(say('form_invalid'));
		await expect(page.getByRole('alert').getByRole('link', { name: say('field_display_name') })).toHaveAttribute(
			'href',
			'#field-displayName'
		);
		await expect(displayName).toBeFocused();
		await expect(displayName).toHaveAccessibleDescription(controlChars(say('field_display_name')));
		await expect(page.getByLabel(say('field_motivation'))).toHaveValue('Compilers, and the docs.');
	});
}
