import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { RunningServer } from '../helpers/server';
import { signIn } from '../helpers/siwe';
import { admin, expect, pageAs, screenshots, startPortal, tabTo, test } from './fixtures';
import { JOURNEY_LOCALES, wordsOf } from './words';

// Issue 44, keyboard alone: an admin adds a reviewer and sets two per application; the reviewer finds
// "Assigned to you" and declares a conflict on one. Every page axe clean, light and dark, phone and desktop.
// In English and in Arabic, right to left (issue 61), on the same server: each run adds its own reviewer,
// who has the fewest open assignments and so is assigned both of the run's applications.
let server: RunningServer;
const reviewers = { en: privateKeyToAccount(generatePrivateKey()), ar: privateKeyToAccount(generatePrivateKey()) };
/** Each run's two applicants: one the reviewer has a conflict with, one plain. */
const applicants = { en: ['Conflicted Cleo', 'Plain Pat'], ar: ['Conflicted Coco', 'Plain Paz'] } as const;
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

for (const locale of JOURNEY_LOCALES)
	test(`${locale}: an admin adds a reviewer and sets two per application; the reviewer declares a conflict on an assigned one`, async ({
		browser
	}, testInfo) => {
		const { say, path, literal } = wordsOf(locale);
		const reviewer = reviewers[locale];
		const [cleo, pat] = applicants[locale];
		const page = await pageAs(browser, server, admin);
		await page.goto(`${server.url}${path('/admin/reviewers')}`);
		await expect(page.getByRole('heading', { level: 1, name: say('admin_nav_reviewers') })).toBeVisible();

		await tabTo(page, page.getByRole('textbox', { name: say('admin_wallet_address') }));
		await page.keyboard.type(reviewer.address);
		await tabTo(page, page.getByRole('button', { name: say('admin_add_reviewer') }));
		await page.keyboard.press('Enter');
		await expect(page.getByRole('status')).toContainText(say('admin_reviewer_added'));
		await expect(page.getByRole('rowheader', { name: new RegExp(reviewer.address.toLowerCase()) })).toBeVisible();

		await tabTo(page, page.getByRole('textbox', { name: say('admin_per_application_label') }));
		await page.keyboard.press('ControlOrMeta+a');
		await page.keyboard.type('2');
		await page.keyboard.press('Enter');
		await expect(page.getByRole('status')).toContainText(say('admin_reviewer_settings_saved'));
		await expect(page.getByRole('textbox', { name: say('admin_per_application_label') })).toHaveValue('2');
		await screenshots(page, testInfo, `admin-reviewers-${locale}`);

		// Two applications: with two reviewers and two per application, both are assigned to each.
		for (const name of [cleo, pat]) {
			const applicant = privateKeyToAccount(generatePrivateKey());
			const applied = await post(
				'/apply',
				{ displayName: name, motivation: 'I would like to help.', contact: '' },
				await signIn(server.url, applicant)
			);
			expect(applied.status).toBe(303);
		}

		const mine = await pageAs(browser, server, reviewer);
		await mine.goto(`${server.url}${path('/review')}`);
		await expect(mine.getByRole('heading', { level: 2, name: say('review_assigned_to_you') })).toBeVisible();
		const assigned = mine.getByRole('table', { name: say('review_assigned_to_you') });
		await expect(assigned.getByRole('link', { name: cleo })).toBeVisible();
		await expect(assigned.getByRole('link', { name: pat })).toBeVisible();
		await screenshots(mine, testInfo, `review-assigned-${locale}`);

		await tabTo(mine, assigned.getByRole('link', { name: cleo }));
		await mine.keyboard.press('Enter');
		await expect(mine.getByRole('heading', { level: 1, name: cleo })).toBeVisible();
		await expect(mine.getByText(say('review_assigned_badge'))).toBeVisible();
		// An empty reason is refused, with focus on the field to fix.
		await tabTo(mine, mine.getByRole('button', { name: say('review_conflict_submit') }));
		await mine.keyboard.press('Enter');
		await expect(mine.getByRole('alert')).toBeVisible();
		await tabTo(mine, mine.getByRole('textbox', { name: say('review_conflict_reason_label') }));
		await mine.keyboard.type('She is my sister.');
		await tabTo(mine, mine.getByRole('button', { name: say('review_conflict_submit') }));
		await mine.keyboard.press('Enter');
		await expect(
			mine.getByText(new RegExp(`^${literal(say('review_conflict_declared').split('{reason}')[0]!).source}`))
		).toBeVisible();
		await expect(mine.getByRole('button', { name: say('review_cast_vote') })).toHaveCount(0);
		await expect(mine.getByText(say('review_others_hidden_conflict'))).toBeVisible();
		await screenshots(mine, testInfo, `review-conflict-${locale}`);

		// Off the reviewer's list; the admin reads the reason on the application's page.
		await mine.goto(`${server.url}${path('/review')}`);
		await expect(mine.getByRole('link', { name: cleo })).toHaveCount(0);
		await page.goto(`${server.url}${path('/admin')}?q=${encodeURIComponent(cleo)}`);
		await page.getByRole('link', { name: cleo }).first().press('Enter');
		await expect(page.getByText('She is my sister.')).toBeVisible();
	});
