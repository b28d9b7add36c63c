import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { postForm } from '../helpers/forms';
import type { RunningServer } from '../helpers/server';
import { signIn } from '../helpers/siwe';
import { admin, expect, pageAs, screenshots, startPortal, tabTo, test } from './fixtures';

// Conditional questions (#58, docs/application-form.md "Show only if") in Chromium: the builder's control with
// the keyboard, then /apply showing and hiding questions as answers change, the Tab key skipping hidden ones,
// and every question shown with its condition without JavaScript.
let server: RunningServer;

/** Saves the form: Role (a choice), School (only if Role is Student, when `schoolIf`), Year only if School is MIT, a box. */
async function saveForm(schoolIf: boolean): Promise<void> {
	const fields: Record<string, string> = {
		questionCount: '4',
		'questions.0.key': 'role',
		'questions.0.label': 'Your role',
		'questions.0.type': 'single_choice',
		'questions.0.required': 'on',
		'questions.0.options': 'Student\nWorker',
		'questions.1.key': 'school',
		'questions.1.label': 'Your school',
		'questions.1.type': 'short_text',
		'questions.1.required': 'on',
		'questions.2.key': 'year',
		'questions.2.label': 'Year of study',
		'questions.2.type': 'number',
		'questions.2.required': 'on',
		'questions.2.showIfKey': 'school',
		'questions.2.showIfEquals': 'MIT',
		'questions.3.key': 'coc',
		'questions.3.label': 'Have you read the code of conduct?',
		'questions.3.type': 'yes_no',
		...(schoolIf ? { 'questions.1.showIfKey': 'role', 'questions.1.showIfEquals': 'Student' } : {})
	};
	const saved = await postForm(`${server.url}/admin/form?/save`, fields, { cookie: await signIn(server.url, admin) });
	expect(saved.status).toBe(303);
}

test.beforeAll(async () => {
	server = await startPortal({ ADMIN_ADDRESSES: admin.address });
});
test.afterAll(async () => {
	await server?.stop();
});

test('the builder’s “Show only if” with the keyboard: earlier questions only, a choice’s options as values', async ({
	browser
}, testInfo) => {
	await saveForm(false);
	const page = await pageAs(browser, server, admin);
	await page.goto(`${server.url}/admin/form`);
	await page.waitForFunction(() => document.querySelector('button[value="add"]') !== null);
	const school = page.locator('.questions .item').nth(1);
	await school.locator(':scope > details > summary').focus();
	await page.keyboard.press('Enter');
	const key = page
		.getByRole('combobox', { name: 'Question', exact: true })
		.and(page.locator('[name="questions.1.showIfKey"]'));
	await tabTo(page, key);
	await expect(key.locator('option')).toHaveText(['Always show this question', 'Your role']);
	await page.keyboard.press('ArrowDown');
	await expect(key).toHaveValue('role');
	// The value is now a select of the chosen question's options.
	const value = page.locator('select[name="questions.1.showIfEquals"]');
	await expect(value.locator('option')).toHaveText(['Student', 'Worker']);
	await tabTo(page, value);
	await expect(value).toHaveAccessibleName('Is answered');
	await expect(value).toHaveValue('Student');
	// The preview notes the condition (it has no answers to follow).
	await expect(page.getByRole('region', { name: 'Preview' })).toContainText(
		'Answer only if your answer to “Your role” is “Student”.'
	);
	await tabTo(page, 'button.primary', 120);
	await page.keyboard.press('Enter');
	await expect(page.getByText('Saved as a new version')).toBeVisible();
	await expect(page.locator('[name="questions.1.showIfKey"]')).toHaveValue('role');
	await page.locator('.questions .item').nth(1).locator(':scope > details > summary').click();
	await expect(page.locator('[name="questions.1.showIfKey"]')).toBeVisible();
	await screenshots(page, testInfo, 'admin-form-show-if');
});

test('/apply shows and hides questions as the answers change, and Tab skips the hidden ones', async ({
	browser
}, testInfo) => {
	await saveForm(true);
	const member = privateKeyToAccount(generatePrivateKey());
	const page = await pageAs(browser, server, member);
	await page.goto(`${server.url}/apply`);
	const school = page.locator('[name="answers.school"]');
	const year = page.locator('[name="answers.year"]');
	const student = page.getByRole('radio', { name: 'Student' });
	const worker = page.getByRole('radio', { name: 'Worker' });
	const coc = page.getByRole('checkbox', { name: 'Have you read the code of conduct?' });
	// Hydrated: nothing chosen, so School and Year are hidden and their notes gone.
	await expect(school).toBeHidden();
	await expect(year).toBeHidden();
	await expect(page.getByText('Answer only if')).toHaveCount(0);

	await page.getByLabel('Display name').fill('Ada');
	await page.getByLabel('Motivation').fill('Docs.');
	// From the role's radios, Tab goes straight to the box: the hidden questions are out of the way.
	await tabTo(page, student);
	await page.keyboard.press('Tab');
	await expect(coc).toBeFocused();

	// Choosing Student (keyboard: back to the radios, Space) shows School, next in the Tab order.
	await page.keyboard.press('Shift+Tab');
	await expect(student).toBeFocused();
	await page.keyboard.press('Space');
	await expect(school).toBeVisible();
	await page.keyboard.press('Tab');
	await expect(school).toBeFocused();
	await page.keyboard.type('MIT');
	// A chain: Year follows School's answer.
	await expect(year).toBeVisible();
	await page.keyboard.press('Tab');
	await expect(year).toBeFocused();
	await page.keyboard.type('2');
	await screenshots(page, testInfo, 'apply-conditional');

	// Worker hides School and Year (Year because School is hidden), and Tab skips both again.
	await student.focus();
	await page.keyboard.press('ArrowDown');
	await expect(worker).toBeChecked();
	await expect(school).toBeHidden();
	await expect(year).toBeHidden();
	await page.keyboard.press('Tab');
	await expect(coc).toBeFocused();
	// Back to Student: what was typed is still there.
	await page.keyboard.press('Shift+Tab');
	await page.keyboard.press('ArrowUp');
	await expect(student).toBeChecked();
	await expect(school).toHaveValue('MIT');
	await expect(year).toBeVisible();
	await page.keyboard.press('ArrowDown');

	// Submitted as a Worker: the answers typed into the hidden questions are not sent, nor stored.
	await page.getByRole('button', { name: 'Submit application' }).click();
	await expect(page.getByText('Thank you: your application was received.')).toBeVisible();
	const application = page.getByRole('article');
	await expect(application).toContainText(/Your role\s*Worker/);
	await expect(application).not.toContainText('MIT');
	await expect(application).toContainText(/Your school\s*—\s*Year of study\s*—/);
});

test('without JavaScript every question is shown, each conditional one with its condition', async ({ browser }) => {
	await saveForm(true);
	const page = await pageAs(browser, server, privateKeyToAccount(generatePrivateKey()), { scripts: 'off' });
	await page.goto(`${server.url}/apply`);
	await expect(page.locator('[name="answers.school"]')).toBeVisible();
	await expect(page.locator('[name="answers.year"]')).toBeVisible();
	await expect(page.getByText('Answer only if your answer to “Your role” is “Student”.')).toBeVisible();
	await expect(page.getByText('Answer only if your answer to “Your school” is “MIT”.')).toBeVisible();
});

test('choices, a number and a box answered before the scripts run are kept when they take over, and sent', async ({
	browser
}) => {
	await saveForm(true);
	const page = await pageAs(browser, server, privateKeyToAccount(generatePrivateKey()));
	let release!: () => void;
	const scriptsHeld = new Promise<void>((resolve) => (release = resolve));
	// Only the scripts are held: the page is drawn with its styles, as on a phone whose scripts are slow.
	await page.route('**/_app/immutable/**/*.js', async (route) => {
		await scriptsHeld;
		await route.continue();
	});
	await page.goto(`${server.url}/apply`, { waitUntil: 'commit' });
	// Before the scripts: every question is shown (as without JavaScript), and answered.
	await page.getByLabel('Display name').fill('Grace on a slow phone');
	await page.getByLabel('Motivation').fill('Answered before the scripts ran.');
	await page.getByRole('radio', { name: 'Student' }).check();
	await page.locator('[name="answers.school"]').fill('MIT');
	await page.locator('[name="answers.year"]').fill('3');
	await page.getByRole('checkbox', { name: 'Have you read the code of conduct?' }).check();
	// Not hydrated yet: each conditional question still shows its condition.
	await expect(page.getByText('Answer only if')).toHaveCount(2);
	release();
	// The scripts have taken over (the conditions' notes go as the form starts showing and hiding questions;
	// the header is drawn by the server, so it tells nothing): every answer is still there.
	await expect(page.getByText('Answer only if')).toHaveCount(0);
	await expect(page.getByRole('radio', { name: 'Student' })).toBeChecked();
	await expect(page.locator('[name="answers.school"]')).toHaveValue('MIT');
	await expect(page.locator('[name="answers.year"]')).toBeVisible();
	await expect(page.locator('[name="answers.year"]')).toHaveValue('3');
	await expect(page.getByRole('checkbox', { name: 'Have you read the code of conduct?' })).toBeChecked();
	await page.getByRole('button', { name: 'Submit application' }).click();
	await expect(page.getByText('Thank you: your application was received.')).toBeVisible();
	const application = page.getByRole('article');
	await expect(application).toContainText(/Your role\s*Student/);
	await expect(application).toContainText(/Your school\s*MIT/);
	await expect(application).toContainText(/Year of study\s*3/);
	await expect(application).toContainText(/code of conduct\?\s*Yes/);
	await page.context().close();
});
