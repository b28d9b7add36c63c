import type { Browser, Page } from '@playwright/test';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { RunningServer } from '../helpers/server';
import { signIn } from '../helpers/siwe';
import { admin, expect, screenshots, startPortal, tabTo, test } from './fixtures';

// Issue 27: a reviewer votes with the keyboard alone (no clicks, no element.focus()), and both /review
// pages are axe clean in light and dark, at phone and desktop width.
let server: RunningServer;
const reviewer = privateKeyToAccount(generatePrivateKey());

test.beforeAll(async () => {
	server = await startPortal({ ADMIN_ADDRESSES: admin.address, REVIEWER_ADDRESSES: reviewer.address });
	const adminCookie = await signIn(server.url, admin);
	const post = (path: string, fields: Record<string, string>, cookie: string) =>
		fetch(`${server.url}${path}`, {
			method: 'POST',
			body: new URLSearchParams(fields),
			headers: { cookie, origin: server.url, accept: 'text/html' },
			redirect: 'manual'
		});
	const rubric = await post(
		'/admin/form?/rubric',
		{
			criterionCount: '2',
			'criteria.0.key': 'fit',
			'criteria.0.label': 'Fit with the community',
			'criteria.1.key': 'effort',
			'criteria.1.label': 'Effort',
			'criteria.1.help': 'How much care went into the application'
		},
		adminCookie
	);
	expect(rubric.status).toBe(303);
	const applicant = privateKeyToAccount(generatePrivateKey());
	const applied = await post(
		'/apply',
		{ displayName: 'Keyboard Kim', motivation: 'I would like to help with the docs.', contact: '' },
		await signIn(server.url, applicant)
	);
	expect(applied.status).toBe(303);
});
test.afterAll(async () => {
	await server?.stop();
});

async function reviewerPage(browser: Browser): Promise<Page> {
	const cookie = await signIn(server.url, reviewer);
	const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
	const [name, value] = cookie.split(/=(.*)/s) as [string, string];
	await context.addCookies([{ name, value, url: server.url }]);
	return context.newPage();
}

test('a reviewer finds the application in their queue and votes with scores and a comment by keyboard alone', async ({
	browser
}, testInfo) => {
	const page = await reviewerPage(browser);
	await page.goto(`${server.url}/review`);
	await expect(page.getByRole('heading', { level: 1, name: 'Review' })).toBeVisible();
	// The header offers a reviewer the way back here.
	await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Review' })).toBeVisible();
	await screenshots(page, testInfo, 'review-queue');

	await tabTo(page, page.getByRole('link', { name: 'Keyboard Kim' }));
	await page.keyboard.press('Enter');
	await expect(page.getByRole('heading', { level: 1, name: 'Keyboard Kim' })).toBeVisible();
	await expect(page.getByText('Hidden until you approve or reject')).toBeVisible();
	await screenshots(page, testInfo, 'review-application');

	// A reject without a comment is refused, and focus lands on the comment to fix.
	await tabTo(page, page.getByRole('radio', { name: 'Approve' }));
	await page.keyboard.press('ArrowRight');
	await expect(page.getByRole('radio', { name: 'Reject' })).toBeChecked();
	await tabTo(page, page.locator('input[name="score.fit"][value="1"]'));
	for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
	await expect(page.locator('input[name="score.fit"][value="4"]')).toBeChecked();
	await page.keyboard.press('Tab');
	await expect(page.locator('input[name="score.effort"][value="1"]')).toBeFocused();
	await page.keyboard.press('Space');
	for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowRight');
	await expect(page.locator('input[name="score.effort"][value="5"]')).toBeChecked();
	await tabTo(page, page.getByRole('button', { name: 'Cast vote' }));
	await page.keyboard.press('Enter');
	const comment = page.getByRole('textbox', { name: /Comment/ });
	await expect(page.getByRole('alert')).toContainText('Some fields need attention.');
	await expect(comment).toBeFocused();
	await expect(comment).toHaveAccessibleDescription(/Say why you vote to reject\./);
	await screenshots(page, testInfo, 'review-refused');

	await page.keyboard.type('The motivation does not say what they would do.');
	await tabTo(page, page.getByRole('button', { name: 'Cast vote' }));
	await page.keyboard.press('Enter');
	await expect(page.getByRole('status').getByText('Your vote is recorded: Reject.')).toBeVisible();
	await expect(page.getByText('No other reviewer has voted yet.')).toBeVisible();
	await expect(page.getByText('Fit with the community: 4 / 5')).toBeVisible();

	await page.goto(`${server.url}/review?tab=voted`);
	await expect(page.getByRole('link', { name: 'Keyboard Kim' })).toBeVisible();
	await screenshots(page, testInfo, 'review-voted');
});
