import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { RunningServer } from '../helpers/server';

import { PHONE, expect, pageAs, screenshots, startPortal, test } from './fixtures';

// The applicant's own application (issue 58) in Chromium: a member starts on a phone, the draft saves
// by itself ("Saved at …"), a new browser context signed in as the same member finds the form
// prefilled, submits, edits once, and withdraws; axe and widths on the page at each step.
let server: RunningServer;

test.beforeAll(async () => {
	server = await startPortal();
});
test.afterAll(async () => {
	await server?.stop();
});

test('a draft started on a phone is prefilled on a desktop; the application is edited once, then withdrawn', async ({
	browser
}, testInfo) => {
	const applicant = privateKeyToAccount(generatePrivateKey());
	const phone = await pageAs(browser, server, applicant, { viewport: PHONE });
	await phone.goto(`${server.url}/apply`);
	await phone.getByLabel('Display name').fill('Ada on the train');
	await phone.getByLabel('Motivation').fill('Started on my phone, DRAFT-E2E.');
	// A few seconds after typing stops, the draft is saved and the page says when.
	await expect(phone.getByText(/Saved at \d{1,2}:\d{2}/)).toBeVisible({ timeout: 15_000 });
	await screenshots(phone, testInfo, 'apply-draft-saved');
	await phone.context().close();

	// Another browser context, the same member: the form holds the draft.
	const desktop = await pageAs(browser, server, applicant);
	await desktop.goto(`${server.url}/apply`);
	await expect(desktop.getByLabel('Display name')).toHaveValue('Ada on the train');
	await expect(desktop.getByLabel('Motivation')).toHaveValue('Started on my phone, DRAFT-E2E.');
	await expect(desktop.getByText(/Saved at \d{1,2}:\d{2}/)).toBeVisible();
	await desktop.getByLabel('Motivation').fill('Finished on my desktop, DRAFT-E2E.');
	await desktop.getByRole('button', { name: 'Submit application' }).click();
	await expect(desktop.getByText('Thank you: your application was received.')).toBeVisible();

	// Edit once.
	await desktop.getByRole('link', { name: 'Edit your application' }).click();
	await expect(desktop.getByRole('heading', { name: 'Edit your application' })).toBeVisible();
	await desktop.getByLabel('Motivation').fill('Edited once, EDITED-E2E.');
	await desktop.getByRole('button', { name: 'Save changes' }).click();
	await expect(desktop.getByText('Your changes are saved.')).toBeVisible();
	await expect(desktop.getByText('EDITED-E2E').first()).toBeVisible();
	await expect(desktop.getByText('Edited before review.')).toBeVisible();
	await screenshots(desktop, testInfo, 'apply-edited');

	// Withdraw, with a reason.
	await desktop.getByText('Withdraw this application').click();
	await desktop.getByLabel('Reason (optional)').fill('Found another way in');
	await desktop.getByRole('button', { name: 'Withdraw application' }).click();
	await expect(desktop.getByText('Your application is withdrawn.')).toBeVisible();
	await expect(desktop.getByText('You withdrew this application.')).toBeVisible();
	await expect(desktop.getByRole('heading', { name: 'Apply again' })).toBeVisible();
	// The new form is empty: the submission deleted the draft.
	await expect(desktop.getByLabel('Motivation')).toHaveValue('');
	await screenshots(desktop, testInfo, 'apply-withdrawn');
	await desktop.context().close();
});

// Enter in a text field submits the form with its default button (the first submit button in tree order):
// the application, not "Save draft", which comes first on the page. With scripts and without.
for (const scripts of ['on', 'off'] as const)
	test(`Enter in a field submits the application (scripts ${scripts})`, async ({ browser }) => {
		const applicant = privateKeyToAccount(generatePrivateKey());
		const page = await pageAs(browser, server, applicant, { scripts });
		await page.goto(`${server.url}/apply`);
		await page.getByLabel('Motivation').fill('Sent with the Enter key, ENTER-E2E.');
		await page.getByLabel('Display name').fill('Ada at the keyboard');
		// The hidden default button is no one's name for a button: one "Submit application", the visible one.
		await expect(page.getByRole('button', { name: 'Submit application' })).toHaveCount(1);
		await expect(page.getByRole('button', { name: 'Submit application' })).toBeVisible();
		await page.getByLabel('Display name').press('Enter');
		// The application, not a saved draft (that would come back to the form, "Saved at …").
		await expect(page.getByRole('link', { name: 'Edit your application' })).toBeVisible();
		await expect(page.getByText('ENTER-E2E').first()).toBeVisible();
		await expect(page.getByLabel('Motivation')).toHaveCount(0);
		await page.context().close();
	});

// A slow phone: the applicant types before the page's scripts have run. What they typed is still there once
// the scripts take over, and Enter sends it.
test('what is typed before the scripts run is kept, and sent', async ({ browser }) => {
	const applicant = privateKeyToAccount(generatePrivateKey());
	const page = await pageAs(browser, server, applicant);
	let release!: () => void;
	const scriptsHeld = new Promise<void>((resolve) => (release = resolve));
	await page.route('**/_app/immutable/**', async (route) => {
		await scriptsHeld;
		await route.continue();
	});
	await page.goto(`${server.url}/apply`, { waitUntil: 'commit' });
	await page.getByLabel('Motivation').fill('Typed before the scripts ran, EARLY-E2E.');
	await page.getByLabel('Display name').fill('Ada on a slow phone');
	release();
	// The scripts have taken over: the header learned who is signed in (GET /api/auth/me, from the browser).
	await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
	await expect(page.getByLabel('Display name')).toHaveValue('Ada on a slow phone');
	await expect(page.getByLabel('Motivation')).toHaveValue('Typed before the scripts ran, EARLY-E2E.');
	await page.getByLabel('Display name').press('Enter');
	await expect(page.getByRole('link', { name: 'Edit your application' })).toBeVisible();
	await expect(page.getByText('EARLY-E2E').first()).toBeVisible();
	await page.context().close();
});
