import type { Page } from '@playwright/test';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { RunningServer } from '../helpers/server';
import { signIn } from '../helpers/siwe';
import { admin, expect, pageAs, screenshots, startPortal, tabTo, test } from './fixtures';

// Issue 31: both admin screens with the keyboard alone (no clicks, no element.focus()), and what a
// screen reader is given: every refusal in an alert or as the focused field's description, a confirm
// dialog that opens on Cancel, the browser's checks before the dialog, and a short way to the table.
let server: RunningServer;
const ids: Record<string, string> = {};
const applicants: Record<string, PrivateKeyAccount> = {};

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
	for (const name of ['Keyrow 0', 'Keyrow 1', 'Keydetail', 'Keyconflict', 'Keyask'])
		applicants[name] = await apply(name);
	const cookie = await signIn(server.url, admin);
	const html = await (await fetch(`${server.url}/admin?q=Key`, { headers: { cookie } })).text();
	for (const [, id, name] of html.matchAll(/href="\/admin\/applications\/([0-9a-f-]{36})">(?:<bdi>)?([^<]+)</g))
		ids[name!] = id!;
});
test.afterAll(async () => {
	await server?.stop();
});

/** The review state of an application as the server has it now (the first badge of its page's Status list). */
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

test('/admin: the first row is a few Tab presses from the page top, and a bulk move is checked, asked and announced', async ({
	browser
}, testInfo) => {
	const page = await pageAs(browser, server, admin);
	await page.goto(`${server.url}/admin?q=Keyrow`);
	const firstRow = page.getByRole('checkbox', { name: 'Select Keyrow 0' });
	await expect(firstRow).toBeVisible();
	// From the top of the page: Tab to "Skip to applications", Enter, Tab: the first row's checkbox. The
	// header's language switcher (issue 47) is one stop more than before.
	const skip = page.getByRole('link', { name: 'Skip to applications' });
	let presses = await tabTo(page, skip, 11);
	await page.keyboard.press('Enter');
	presses += await tabTo(page, firstRow, 1);
	testInfo.annotations.push({ type: 'Tab presses from the top of /admin to the first row', description: `${presses}` });
	expect(presses).toBeLessThanOrEqual(11);

	// The row's own actions follow it: its checkbox (Space selects), then its link.
	await page.keyboard.press('Space');
	await expect(firstRow).toBeChecked();
	await expect(page.getByText('1 selected')).toBeVisible();
	// The move's controls are just before the table: Shift+Tab to the button, then to Move.
	await page.keyboard.press('Shift+Tab');
	const applyButton = page.getByRole('button', { name: 'Apply to selected' });
	await expect(applyButton).toBeFocused();
	await page.keyboard.press('Shift+Tab');
	const move = page.getByLabel('Move', { exact: true });
	await expect(move).toBeFocused();
	await page.keyboard.press('ArrowDown'); // Approve → Reject
	await expect(move).toHaveValue('rejected');

	// No reason: the browser refuses it before any dialog, on the reason field, with its message.
	const reason = page.getByLabel('Reason');
	// Past the reason and, for a rejection, the optional "Apply again from" date (four stops in Chromium).
	await tabTo(page, applyButton, 8);
	await page.keyboard.press('Enter');
	await expect(reason).toBeFocused();
	expect(await reason.evaluate((el: HTMLInputElement) => el.validationMessage)).toBe(
		'A reason is needed to move review to rejected.'
	);
	await expect(page.getByRole('dialog')).toBeHidden();

	// With a reason: the dialog asks, on Cancel; a second Enter cancels, nothing moves.
	await page.keyboard.type('Not active in the community yet.');
	// Past the reason and, for a rejection, the optional "Apply again from" date (four stops in Chromium).
	await tabTo(page, applyButton, 8);
	await page.keyboard.press('Enter');
	const dialog = page.getByRole('dialog', { name: 'Reject 1 application?' });
	await expect(dialog).toBeVisible();
	await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
	await expect(dialog).toContainText('This is final: it cannot be undone.');
	await expect(dialog).toContainText('The applicant is told they were not accepted');
	await page.keyboard.press('Enter');
	await expect(dialog).toBeHidden();
	await expect(applyButton).toBeFocused();
	expect(await reviewOf(page, 'Keyrow 0')).toBe('pending');
	await screenshots(page, testInfo, 'admin-keyboard-table');

	// A refusal the browser cannot make (a control character in the reason): announced and focused.
	// Back past the date (four stops in Chromium: three fields and its picker) to the reason.
	for (let i = 0; i < 8 && !(await reason.evaluate((el) => el === document.activeElement)); i++)
		await page.keyboard.press('Shift+Tab');
	await expect(reason).toBeFocused();
	await page.keyboard.press('End');
	await page.keyboard.insertText('\u0007');
	// Past the reason and, for a rejection, the optional "Apply again from" date (four stops in Chromium).
	await tabTo(page, applyButton, 8);
	await page.keyboard.press('Enter');
	await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
	await page.keyboard.press('Tab');
	await expect(dialog.getByRole('button', { name: /^Confirm/ })).toBeFocused();
	await page.keyboard.press('Enter');
	await expect(page.getByRole('alert')).toContainText('Some fields need attention.');
	await expect(reason).toBeFocused();
	await expect(reason).toHaveAccessibleDescription(/Reason must not contain control characters/);
	expect(await reviewOf(page, 'Keyrow 0')).toBe('pending');
});

test('/admin: a bulk ask about one answer, by keyboard alone, reaches the applicant next to that answer', async ({
	browser
}) => {
	const page = await pageAs(browser, server, admin);
	await page.goto(`${server.url}/admin?q=Keyask`);
	const row = page.getByRole('checkbox', { name: 'Select Keyask' });
	await tabTo(page, row);
	await page.keyboard.press('Space');
	await expect(page.getByText('1 selected')).toBeVisible();
	// Back to Move, then to the top of its list: "Ask for more information".
	const move = page.getByLabel('Move', { exact: true });
	await page.keyboard.press('Shift+Tab');
	await page.keyboard.press('Shift+Tab');
	await expect(move).toBeFocused();
	await page.keyboard.press('Home');
	await expect(move).toHaveValue('needs_info');
	// The reason, then the asks: closed until Enter opens them, one box per answer.
	await page.keyboard.press('Tab');
	await expect(page.getByLabel('Reason')).toBeFocused();
	await page.keyboard.type('Tell us a little more.');
	const asks = page.locator('details.asks > summary');
	await tabTo(page, asks, 3);
	await page.keyboard.press('Enter');
	const motivationAsk = page.getByRole('textbox', { name: 'Motivation' });
	await tabTo(page, motivationAsk, 6);
	await page.keyboard.type('Which docs would you start with?');
	await tabTo(page, page.getByRole('button', { name: 'Apply to selected' }), 10);
	await page.keyboard.press('Enter');
	// Not final, so no dialog: it is applied and announced.
	await expect(page.getByRole('status').filter({ hasText: 'Asked 1 application for more information.' })).toBeVisible();
	expect(await reviewOf(page, 'Keyask')).toBe('needs info');

	// The applicant reads the ask beside their motivation.
	const applicant = await pageAs(browser, server, applicants.Keyask!);
	await applicant.goto(`${server.url}/apply`);
	await expect(applicant.getByRole('textbox', { name: 'Motivation' })).toHaveAccessibleDescription(
		/The reviewers ask: Which docs would you start with\?/
	);
});

test('the application page: the browser checks before the dialog, a double Enter moves nothing, refusals are announced', async ({
	browser
}, testInfo) => {
	const page = await pageAs(browser, server, admin);
	await page.goto(`${server.url}/admin/applications/${ids['Keydetail']}`);
	const review = page.getByRole('group', { name: 'Review: Waiting for review' });
	const reject = review.getByRole('button', { name: 'Reject' });
	const reason = review.getByLabel('Reason');
	const presses = await tabTo(page, reject);
	testInfo.annotations.push({ type: 'Tab presses from the top of the page to Reject', description: `${presses}` });

	// Reject with an empty reason: refused by the browser, on the reason field; no dialog.
	await page.keyboard.press('Enter');
	await expect(reason).toBeFocused();
	expect(await reason.evaluate((el: HTMLTextAreaElement) => el.validationMessage)).toBe(
		'A reason is needed to move review to rejected.'
	);
	await expect(page.getByRole('dialog')).toBeHidden();

	// A malformed tx hash is not this form's: a review move carries none. A reason, then a double Enter.
	await page.keyboard.type('No reply to our questions.');
	// Past the optional "Apply again from" date (three fields in Chromium) and the buttons before Reject.
	await tabTo(page, reject, 8);
	await page.keyboard.press('Enter');
	await page.keyboard.press('Enter');
	await expect(page.getByRole('dialog')).toBeHidden();
	await expect(reject).toBeFocused();
	expect(await reviewOf(page, 'Keydetail')).toBe('pending');

	// The dialog states the consequence; the final button is one deliberate Tab away.
	await page.keyboard.press('Enter');
	const dialog = page.getByRole('dialog', { name: 'Reject Keydetail?' });
	await expect(dialog).toHaveAccessibleDescription(/not accepted.*This is final: it cannot be undone\./);
	await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
	await screenshots(page, testInfo, 'admin-keyboard-dialog');
	await page.keyboard.press('Tab');
	await page.keyboard.press('Enter');
	await expect(page.getByRole('status').locator('p')).toContainText('Rejected Keydetail.');
	await expect(page.getByRole('status').locator('p')).toBeFocused();
	expect(await reviewOf(page, 'Keydetail')).toBe('rejected');
});

test('the application page: a move another admin made first is announced in an alert', async ({
	browser
}, testInfo) => {
	const page = await pageAs(browser, server, admin);
	await page.goto(`${server.url}/admin/applications/${ids['Keyconflict']}`);
	const review = page.getByRole('group', { name: 'Review: Waiting for review' });
	const approve = review.getByRole('button', { name: 'Approve' });
	await tabTo(page, approve);
	// Meanwhile another admin approves it.
	const cookie = await signIn(server.url, admin);
	const body = new URLSearchParams({ field: 'review', to: 'approved', from: 'pending', confirm: 'yes' });
	const response = await fetch(`${server.url}/admin/applications/${ids['Keyconflict']}?/transition`, {
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
	await expect(alert).toHaveText('Review was changed meanwhile and is now approved. Reload to see the current state.');
	await expect(approve).toBeFocused();
	await screenshots(page, testInfo, 'admin-keyboard-conflict');
});

test('/checkin: a refused note is announced the same way (an alert, focus on the field it is about)', async ({
	browser
}) => {
	const page = await browser.newPage();
	const member = privateKeyToAccount(generatePrivateKey());
	const [name, value] = (await signIn(server.url, member)).split(/=(.*)/s) as [string, string];
	await page.context().addCookies([{ name, value, url: server.url }]);
	await page.goto(`${server.url}/checkin`);
	const note = page.getByLabel('Note');
	await tabTo(page, note);
	await page.keyboard.insertText('hello\u0000');
	await tabTo(page, page.getByRole('button', { name: 'Check in' }), 2);
	await page.keyboard.press('Enter');
	await expect(page.getByRole('alert')).toContainText('Some fields need attention.');
	await expect(note).toBeFocused();
	await expect(note).toHaveAccessibleDescription(/Note must not contain control characters/);
	await expect(page.getByText('No check-ins yet.')).toBeVisible();
});

test('/apply: a refused application is announced the same way, with what was typed kept', async ({ browser }) => {
	const page = await browser.newPage();
	const member = privateKeyToAccount(generatePrivateKey());
	const [name, value] = (await signIn(server.url, member)).split(/=(.*)/s) as [string, string];
	await page.context().addCookies([{ name, value, url: server.url }]);
	await page.goto(`${server.url}/apply`);
	const displayName = page.getByLabel('Display name');
	await tabTo(page, displayName);
	await page.keyboard.insertText('Ada\u0001');
	await page.keyboard.press('Tab');
	await page.keyboard.type('Compilers, and the docs.');
	await tabTo(page, page.getByRole('button', { name: 'Submit application' }), 3);
	await page.keyboard.press('Enter');
	// The summary names the refused field and links to it.
	await expect(page.getByRole('alert')).toContainText('Some fields need attention.');
	await expect(page.getByRole('alert').getByRole('link', { name: 'Display name' })).toHaveAttribute(
		'href',
		'#field-displayName'
	);
	await expect(displayName).toBeFocused();
	await expect(displayName).toHaveAccessibleDescription(/Display name must not contain control characters/);
	await expect(page.getByLabel('Motivation')).toHaveValue('Compilers, and the docs.');
});
