import type { Page } from '@playwright/test';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { RunningServer } from '../helpers/server';

import { admin, expect, pageAs, screenshots, startPortal, tabTo, test } from './fixtures';

// Each community its own form, in Chromium: an admin builds it with the keyboard alone, a member
// answers it, the admin reads the answers; axe on both pages with questions.
let server: RunningServer;

// The second test edits the form the first one saved: a retry runs both again, on a new server.
test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
	server = await startPortal({ ADMIN_ADDRESSES: admin.address });
});
test.afterAll(async () => {
	await server?.stop();
});

/** Chooses the new question's type on the focused select with arrow keys: Home, then down to `index`. */
async function chooseType(page: Page, index: number): Promise<void> {
	await tabTo(page, '#new-type');
	await page.keyboard.press('Home');
	for (let i = 0; i < index; i++) await page.keyboard.press('ArrowDown');
}

test('an admin builds a three-question form with the keyboard, a member answers it, the admin reads it', async ({
	browser
}, testInfo) => {
	const page = await pageAs(browser, server, admin);
	await page.goto(`${server.url}/admin/form`);
	await expect(page.getByText('No questions of your own yet')).toBeVisible();
	await page.waitForFunction(() => document.querySelector('button[value="add"]') !== null);

	// 1. A short answer (the first type).
	await chooseType(page, 0);
	await tabTo(page, 'button[value="add"]');
	await page.keyboard.press('Enter');
	await expect(page.locator('[name="questions.0.label"]')).toBeFocused();
	await page.keyboard.type('Which city?');
	await page.keyboard.press('Tab');
	// Leaving the label suggests a key.
	await expect(page.locator('[name="questions.0.key"]')).toHaveValue('which_city');

	// 2. A single choice (the third type), with two options.
	await chooseType(page, 2);
	await tabTo(page, 'button[value="add"]');
	await page.keyboard.press('Enter');
	await expect(page.locator('[name="questions.1.label"]')).toBeFocused();
	await page.keyboard.type('Which working group?');
	await tabTo(page, '[name="questions.1.options"]');
	await page.keyboard.type('Docs\nInfra');
	await tabTo(page, '[name="questions.1.required"]');
	await page.keyboard.press('Space');

	// 3. A yes/no (the last type), required.
	await chooseType(page, 6);
	await tabTo(page, 'button[value="add"]');
	await page.keyboard.press('Enter');
	// As for the first two: type only once the new label has focus (a loaded machine dropped the first keys).
	await expect(page.locator('[name="questions.2.label"]')).toBeFocused();
	await page.keyboard.type('Have you read the code of conduct?');
	await expect(page.locator('[name="questions.2.label"]')).toHaveValue('Have you read the code of conduct?');
	await tabTo(page, '[name="questions.2.required"]');
	await page.keyboard.press('Space');

	// Move the choice to the top with its own button, then save.
	await tabTo(page, 'button[value="up:1"]');
	await page.keyboard.press('Enter');
	await expect(page.locator('[name="questions.0.label"]')).toHaveValue('Which working group?');
	// The preview follows the editor.
	await expect(page.getByRole('region', { name: 'Preview' }).getByText('Which working group?')).toBeVisible();
	await tabTo(page, 'button.primary');
	await page.keyboard.press('Enter');
	await expect(page.getByText('Saved as a new version')).toBeVisible();
	await expect(page.getByText('now version 1')).toBeVisible();
	await screenshots(page, testInfo, 'admin-form');

	// The member answers.
	const member = privateKeyToAccount(generatePrivateKey());
	const applicant = await pageAs(browser, server, member);
	await applicant.goto(`${server.url}/apply`);
	await expect(applicant.getByRole('group', { name: 'Which working group?' })).toBeVisible();
	// Each radio and checkbox beside its words, on their first line (issue 61: they sat above them).
	for (const input of [
		applicant.getByRole('radio', { name: 'Infra' }),
		applicant.getByRole('checkbox', { name: 'Have you read the code of conduct?' })
	]) {
		const place = await input.evaluate((el) => {
			const box = el.getBoundingClientRect();
			const label = el.closest('label')!;
			const range = document.createRange();
			range.setStartAfter(el);
			range.setEndAfter(label.lastChild!);
			const line = range.getClientRects()[0]!;
			return { beside: line.left >= box.right, off: Math.abs(line.top + line.height / 2 - (box.top + box.height / 2)) };
		});
		expect(place.beside, 'the words after the box, on its line').toBe(true);
		expect(place.off, 'the box centred on the first line of its words').toBeLessThanOrEqual(2);
	}
	await screenshots(applicant, testInfo, 'apply-questions');
	await applicant.getByLabel('Display name').fill('Grace <b>H</b>');
	await applicant.getByLabel('Motivation').fill('Compilers.');
	await applicant.getByRole('radio', { name: 'Infra' }).check();
	await applicant.getByLabel(/Which city\?/).fill('Ghent');
	// The required box left unticked: the browser's own check stops the post.
	await applicant.getByRole('button', { name: 'Submit application' }).click();
	await expect(applicant.getByText('Thank you')).toHaveCount(0);
	await applicant.getByLabel('Have you read the code of conduct?').check();
	await applicant.getByRole('button', { name: 'Submit application' }).click();
	await expect(applicant.getByText('Thank you: your application was received.')).toBeVisible();
	await expect(applicant.getByText('Infra', { exact: true })).toBeVisible();

	// The admin reads the answers, with the labels asked.
	await page.goto(`${server.url}/admin?q=${member.address}`);
	await page.getByRole('link', { name: 'Grace <b>H</b>' }).first().click();
	const submitted = page.getByRole('region', { name: 'As submitted' });
	await expect(submitted).toContainText(/Which working group\?\s*Infra/);
	await expect(submitted).toContainText(/Which city\?\s*Ghent/);
	await expect(submitted).toContainText(/Have you read the code of conduct\?\s*Yes/);
});

test('the form builder: questions are one line each, move by drag and drop, and open where a fix is needed', async ({
	browser
}, testInfo) => {
	const page = await pageAs(browser, server, admin);
	await page.goto(`${server.url}/admin/form`);
	await page.waitForFunction(() => document.querySelector('button[value="add"]') !== null);
	const questions = page.locator('.questions .item');
	const labels = () => questions.locator('summary .title').allInnerTexts();
	// The saved form (the test above): three questions, collapsed to their label, type and required flag.
	await expect(questions).toHaveCount(3);
	expect(await labels()).toEqual([
		'1. Which working group?',
		'2. Which city?',
		'3. Have you read the code of conduct?'
	]);
	await expect(questions.nth(0).locator(':scope > details > summary')).toContainText(/Single choice\s*Required/);
	await expect(page.locator('[name="questions.0.label"]')).toBeHidden();

	// Dragged by its handle onto the top half of the first, the third question becomes the first.
	await questions
		.nth(2)
		.locator('.handle')
		.dragTo(questions.nth(0), { targetPosition: { x: 40, y: 4 } });
	expect(await labels()).toEqual([
		'1. Have you read the code of conduct?',
		'2. Which working group?',
		'3. Which city?'
	]);
	const preview = page.getByRole('region', { name: 'Preview' });
	await expect(preview).toContainText(/code of conduct\?[\s\S]*Which working group\?[\s\S]*Which city\?/);
	await expect(page.getByRole('status').filter({ hasText: 'moved to place 1' })).toHaveCount(1);

	// Opening one question closes the one open before.
	await questions.nth(1).locator(':scope > details > summary').click();
	await expect(page.locator('[name="questions.1.label"]')).toBeVisible();
	await questions.nth(2).locator(':scope > details > summary').click();
	await expect(page.locator('[name="questions.2.label"]')).toBeVisible();
	await expect(page.locator('[name="questions.1.label"]')).toBeHidden();

	// A new question left without a label and closed: saving opens it at the label the browser asks for.
	await page.getByRole('button', { name: 'Add question' }).click();
	await expect(page.locator('[name="questions.3.label"]')).toBeFocused();
	await questions.nth(3).locator(':scope > details > summary').click();
	await expect(page.locator('[name="questions.3.label"]')).toBeHidden();
	await page.getByRole('button', { name: 'Save as a new version' }).click();
	await expect(page.locator('[name="questions.3.label"]')).toBeFocused();

	// A choice with one option: the server refuses, names the question, and opens it at the options.
	await page.locator('[name="questions.3.label"]').fill('Which chain?');
	await page.locator('[name="questions.3.type"]').selectOption('single_choice');
	await page.locator('[name="questions.3.options"]').fill('Polygon');
	await questions.nth(3).locator(':scope > details > summary').click();
	await page.getByRole('button', { name: 'Save as a new version' }).click();
	await expect(page.getByRole('alert')).toContainText('Question 4:');
	await expect(page.locator('[name="questions.3.options"]')).toBeFocused();
	await expect(questions.nth(3).locator(':scope > details > summary')).toContainText('Needs a fix');
	await screenshots(page, testInfo, 'admin-form-refused');
	await page.locator('[name="questions.3.options"]').fill('Polygon\nBase');
	await page.getByRole('button', { name: 'Save as a new version' }).click();
	await expect(page.getByText('now version 2')).toBeVisible();
	expect(await labels()).toEqual([
		'1. Have you read the code of conduct?',
		'2. Which working group?',
		'3. Which city?',
		'4. Which chain?'
	]);

	// The builder shows one part at a time, each with its one Save: the rubric is the next tab.
	await expect(page.getByRole('button', { name: /^Save/ })).toHaveCount(1);
	await page
		.getByRole('navigation', { name: 'Parts of the form' })
		.getByRole('link', { name: "Reviewers' rubric" })
		.click();
	await expect(page.getByRole('link', { name: "Reviewers' rubric" })).toHaveAttribute('aria-current', 'page');
	await expect(page.getByRole('button', { name: /^Save/ })).toHaveCount(1);
	// The rubric's criteria are the same kind of list: a new one opens at its label; saved, it is one line.
	await page.getByRole('button', { name: 'Add criterion' }).click();
	await expect(page.locator('[name="criteria.0.label"]')).toBeFocused();
	await page.keyboard.type('Fit with the community');
	await page.getByRole('button', { name: 'Save rubric' }).click();
	await expect(page.locator('.rubric .item summary .title')).toHaveText(['1. Fit with the community']);
	await expect(page.locator('[name="criteria.0.label"]')).toBeHidden();
});
