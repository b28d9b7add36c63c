import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { RunningServer } from '../helpers/server';
import { signIn } from '../helpers/siwe';
import { admin, expect, pageAs, screenshots, startPortal, tabTo, test } from './fixtures';

// Issue 44, keyboard alone: an admin adds a reviewer and sets two per application; the reviewer finds
// "Assigned to you" and declares a conflict on one. Every page axe clean, light and dark, phone and desktop.
let server: RunningServer;
const reviewer = privateKeyToAccount(generatePrivateKey());
const second = privateKeyToAccount(generatePrivateKey());

const post = (path: string, fields: Record<string, string>, cookie: string) =>
	fetch(`${server.url}${path}`, {
		method: 'POST',
		body: new URLSearchParams(fields),
		headers: { cookie, origin: server.url, accept: 'text/html' },
		redirect: 'manual'
	});

test.beforeAll(async () => {
	test.setTimeout(180_000);
	server = await startPortal({ ADMIN_ADDRESSES: admin.address });
	// A second reviewer already there, so that two can be assigned.
	expect(
		(await post('/admin/reviewers?/add', { address: second.address }, await signIn(server.url, admin))).status
	).toBe(303);
});
test.afterAll(async () => {
	await server?.stop();
});

test.describe.configure({ timeout: 240_000 });

test('an admin adds a reviewer and sets two per application; the reviewer declares a conflict on an assigned one', async ({
	browser
}, testInfo) => {
	const page = await pageAs(browser, server, admin);
	await page.goto(`${server.url}/admin/reviewers`);
	await expect(page.getByRole('heading', { level: 1, name: 'Reviewers' })).toBeVisible();

	await tabTo(page, page.getByRole('textbox', { name: 'Wallet address' }));
	await page.keyboard.type(reviewer.address);
	await tabTo(page, page.getByRole('button', { name: 'Add reviewer' }));
	await page.keyboard.press('Enter');
	await expect(page.getByRole('status')).toContainText('The reviewer is added');
	await expect(page.getByRole('rowheader', { name: new RegExp(reviewer.address.toLowerCase()) })).toBeVisible();

	await tabTo(page, page.getByRole('textbox', { name: 'Reviewers assigned to each application' }));
	await page.keyboard.press('ControlOrMeta+a');
	await page.keyboard.type('2');
	await page.keyboard.press('Enter');
	await expect(page.getByRole('status')).toContainText('Saved');
	await expect(page.getByRole('textbox', { name: 'Reviewers assigned to each application' })).toHaveValue('2');
	await screenshots(page, testInfo, 'admin-reviewers');

	// Two applications: with two reviewers and two per application, both are assigned to each.
	for (const name of ['Conflicted Cleo', 'Plain Pat']) {
		const applicant = privateKeyToAccount(generatePrivateKey());
		const applied = await post(
			'/apply',
			{ displayName: name, motivation: 'I would like to help.', contact: '' },
			await signIn(server.url, applicant)
		);
		expect(applied.status).toBe(303);
	}

	const mine = await pageAs(browser, server, reviewer);
	await mine.goto(`${server.url}/review`);
	await expect(mine.getByRole('heading', { level: 2, name: 'Assigned to you' })).toBeVisible();
	const assigned = mine.getByRole('table', { name: 'Assigned to you' });
	await expect(assigned.getByRole('link', { name: 'Conflicted Cleo' })).toBeVisible();
	await expect(assigned.getByRole('link', { name: 'Plain Pat' })).toBeVisible();
	await screenshots(mine, testInfo, 'review-assigned');

	await tabTo(mine, assigned.getByRole('link', { name: 'Conflicted Cleo' }));
	await mine.keyboard.press('Enter');
	await expect(mine.getByRole('heading', { level: 1, name: 'Conflicted Cleo' })).toBeVisible();
	await expect(mine.getByText('Assigned to you')).toBeVisible();
	// An empty reason is refused, with focus on the field to fix.
	await tabTo(mine, mine.getByRole('button', { name: 'Declare a conflict' }));
	await mine.keyboard.press('Enter');
	await expect(mine.getByRole('alert')).toBeVisible();
	await tabTo(mine, mine.getByRole('textbox', { name: 'Reason' }));
	await mine.keyboard.type('She is my sister.');
	await tabTo(mine, mine.getByRole('button', { name: 'Declare a conflict' }));
	await mine.keyboard.press('Enter');
	await expect(mine.getByText(/^You declared a conflict of interest: you cannot vote/)).toBeVisible();
	await expect(mine.getByRole('button', { name: 'Cast vote' })).toHaveCount(0);
	await expect(mine.getByText('Hidden: you declared a conflict of interest.')).toBeVisible();
	await screenshots(mine, testInfo, 'review-conflict');

	// Off the reviewer's list; the admin reads the reason on the application's page.
	await mine.goto(`${server.url}/review`);
	await expect(mine.getByRole('link', { name: 'Conflicted Cleo' })).toHaveCount(0);
	await page.goto(`${server.url}/admin?q=Cleo`);
	await page.getByRole('link', { name: 'Conflicted Cleo' }).first().press('Enter');
	await expect(page.getByText('She is my sister.')).toBeVisible();
});
