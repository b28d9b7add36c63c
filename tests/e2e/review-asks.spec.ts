import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { RunningServer } from '../helpers/server';
import { signIn } from '../helpers/siwe';
import { admin, expect, pageAs, screenshots, startPortal, tabTo, test } from './fixtures';

// Issue 43, by keyboard alone (no clicks, no element.focus()): an admin asks about two answers, the
// member finds both by their fields and resubmits, the admin sees what changed; axe clean, light and
// dark, phone and desktop.
let server: RunningServer;
const applicant = privateKeyToAccount(generatePrivateKey());

test.beforeAll(async () => {
	// A server start and two first sign-ins on a busy machine.
	test.setTimeout(180_000);
	server = await startPortal({ ADMIN_ADDRESSES: admin.address });
	const post = async (path: string, fields: Record<string, string>, account: PrivateKeyAccount) =>
		fetch(`${server.url}${path}`, {
			method: 'POST',
			body: new URLSearchParams(fields),
			headers: { cookie: await signIn(server.url, account), origin: server.url, accept: 'text/html' },
			redirect: 'manual'
		});
	const form = await post(
		'/admin/form?/save',
		{
			questionCount: '1',
			'questions.0.key': 'city',
			'questions.0.label': 'Which city?',
			'questions.0.type': 'short_text'
		},
		admin
	);
	expect(form.status).toBe(303);
	const applied = await post(
		'/apply',
		{ displayName: 'Asked Ash', motivation: 'I would like to help with the docs.', 'answers.city': 'Berlin' },
		applicant
	);
	expect(applied.status).toBe(303);
});
test.afterAll(async () => {
	await server?.stop();
});

test('an admin asks about two answers, the member fixes them by their fields, the admin sees what changed', async ({
	browser
}, testInfo) => {
	// Dozens of Tab presses across three pages, each checked, on a busy machine.
	test.setTimeout(180_000);
	const adminPage = await pageAs(browser, server, admin);
	await adminPage.goto(`${server.url}/admin?q=Asked`);
	await tabTo(adminPage, adminPage.getByRole('link', { name: 'Asked Ash' }));
	await adminPage.keyboard.press('Enter');
	await expect(adminPage.getByRole('heading', { level: 1, name: 'Asked Ash' })).toBeVisible();

	// "Ask about this" next to the motivation and the city, each opened by keyboard.
	for (const [label, text] of [
		['Motivation', 'Which docs would you start with?'],
		['Which city?', 'Which district?']
	] as const) {
		// The label is in a visually hidden span; Svelte trims the markup space before it.
		const summary = new RegExp(`Ask about this\\s*\\(${label.replace(/[?()]/g, '\\$&')}\\)`);
		await tabTo(adminPage, adminPage.locator('summary', { hasText: summary }));
		await adminPage.keyboard.press('Enter');
		await adminPage.keyboard.press('Tab');
		await expect(
			adminPage.getByRole('textbox', { name: `Your comment for the applicant on “${label}”` })
		).toBeFocused();
		await adminPage.keyboard.type(text);
	}
	await screenshots(adminPage, testInfo, 'admin-asking');
	await tabTo(adminPage, adminPage.getByRole('button', { name: 'Ask for more information' }));
	await adminPage.keyboard.press('Enter');
	await expect(adminPage.getByRole('status').getByText(/asked .*for more information/i)).toBeVisible();

	const member = await pageAs(browser, server, applicant);
	await member.goto(`${server.url}/apply`);
	const asked = member.getByRole('note', { name: 'The reviewers asked' });
	await expect(asked.getByRole('link', { name: 'Motivation' })).toBeVisible();
	await expect(asked.getByRole('link', { name: 'Which city?' })).toBeVisible();
	const city = member.getByRole('textbox', { name: 'Which city?' });
	await expect(city).toHaveAccessibleDescription(/The reviewers ask: Which district\?/);
	await expect(member.getByRole('textbox', { name: 'Motivation' })).toHaveAccessibleDescription(
		/The reviewers ask: Which docs would you start with\?/
	);
	await screenshots(member, testInfo, 'apply-asked');
	// The link takes the keyboard to the field.
	await tabTo(member, asked.getByRole('link', { name: 'Which city?' }));
	await member.keyboard.press('Enter');
	await expect(member).toHaveURL(/#field-answer-city$/);
	// The link's target is the field itself, and Chromium focuses a focusable target: typing goes in.
	await expect(city).toBeFocused();
	await member.keyboard.press('End');
	await member.keyboard.type(', Kreuzberg');
	await tabTo(member, member.getByRole('button', { name: 'Resubmit application' }));
	await member.keyboard.press('Enter');
	await expect(member.getByText('Waiting for a reviewer.')).toBeVisible();

	await adminPage.reload();
	const changes = adminPage.getByRole('region', { name: 'What changed in the resubmission' });
	await expect(changes).toContainText('1 of 4 fields changed; 1 asked about but not changed');
	await expect(changes.locator('ins')).toContainText('Kreuzberg');
	await expect(changes.getByRole('note')).toContainText('Motivation: “Which docs would you start with?”');
	await screenshots(adminPage, testInfo, 'admin-what-changed');
});

test('from the table: a bulk ask about one answer reaches both applicants, and a bulk rejection names the day to apply again', async ({
	browser
}, testInfo) => {
	// Two applicants of their own, found by the table's search.
	const bulkers = [privateKeyToAccount(generatePrivateKey()), privateKeyToAccount(generatePrivateKey())];
	for (const [i, account] of bulkers.entries()) {
		const applied = await fetch(`${server.url}/apply`, {
			method: 'POST',
			body: new URLSearchParams({
				displayName: `Bulkask ${i}`,
				motivation: 'I would like to help with the docs.',
				'answers.city': 'Porto'
			}),
			headers: { cookie: await signIn(server.url, account), origin: server.url, accept: 'text/html' },
			redirect: 'manual'
		});
		expect(applied.status).toBe(303);
	}
	const page = await pageAs(browser, server, admin);
	await page.goto(`${server.url}/admin?q=Bulkask`);
	const form = page.getByRole('group', { name: /Move the selected applications/ });
	await form.getByLabel('Select all 2 on this page').check();
	await form.getByLabel('Move', { exact: true }).selectOption({ label: 'Ask for more information' });
	// The date belongs to a rejection only; the asks open on demand.
	await expect(form.getByLabel(/Apply again from/)).toHaveCount(0);
	await form.getByText('Ask about single answers').click();
	await form.getByRole('textbox', { name: 'Which city?' }).fill('Which part of Porto?');
	await screenshots(page, testInfo, 'admin-bulk-asks');
	await form.getByRole('button', { name: 'Apply to selected' }).click();
	await expect(page.getByRole('status').filter({ hasText: /2 applications/ })).toBeVisible();

	const member = await pageAs(browser, server, bulkers[0]!);
	await member.goto(`${server.url}/apply`);
	await expect(member.getByText('Which part of Porto?').first()).toBeVisible();
	await member.goto(`${server.url}/inbox`);
	await expect(member.getByText('Which city? “Which part of Porto?”')).toBeVisible();

	// Both back to waiting is the applicant's move; a rejection of both with a date, confirmed in the dialog.
	await page.goto(`${server.url}/admin?q=Bulkask`);
	await form.getByLabel('Select all 2 on this page').check();
	await form.getByLabel('Move', { exact: true }).selectOption({ label: 'Reject' });
	await expect(form.getByText('Ask about single answers')).toHaveCount(0);
	const day = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
	await form.getByLabel('Reason', { exact: true }).fill('Not this round.');
	await form.getByLabel(/Apply again from/).fill(day);
	await form.getByRole('button', { name: 'Apply to selected' }).click();
	await page
		.getByRole('dialog')
		.getByRole('button', { name: /^Confirm/ })
		.click();
	await expect(page.getByRole('status').filter({ hasText: /2 applications/ })).toBeVisible();
	const named = new Date(`${day}T00:00:00Z`).toLocaleDateString('en-GB', {
		day: 'numeric',
		month: 'long',
		year: 'numeric',
		timeZone: 'UTC'
	});
	await member.goto(`${server.url}/apply`);
	await expect(member.getByText(`You can apply again from ${named}`)).toBeVisible();
});
