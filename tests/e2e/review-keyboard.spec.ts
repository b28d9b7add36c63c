import type { Browser, Page } from '@playwright/test';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { RunningServer } from '../helpers/server';
import { signIn } from '../helpers/siwe';
import { admin, expect, screenshots, startPortal, tabTo, test } from './fixtures';
import { JOURNEY_LOCALES, wordsOf } from './words';

// Issue 27: a reviewer votes with the keyboard alone (no clicks, no element.focus()), and both /review
// pages are axe clean in light and dark, at phone and desktop width. In English and in Arabic, right to
// left (issue 61), on the same server: one application for each run.
let server: RunningServer;
const reviewer = privateKeyToAccount(generatePrivateKey());
/** Each run's applicant. */
const applicantOf = { en: 'Keyboard Kim', ar: 'Karim Keys' } as const;

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
	for (const locale of JOURNEY_LOCALES) {
		const applicant = privateKeyToAccount(generatePrivateKey());
		const applied = await post(
			'/apply',
			{ displayName: applicantOf[locale], motivation: 'I would like to help with the docs.', contact: '' },
			await signIn(server.url, applicant)
		);
		expect(applied.status).toBe(303);
	}
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

for (const locale of JOURNEY_LOCALES)
	test(`${locale}: a reviewer finds the application in their queue and votes with scores and a comment by keyboard alone`, async ({
		browser
	}, testInfo) => {
		const { say, count, path, next } = wordsOf(locale);
		const kim = applicantOf[locale];
		const page = await reviewerPage(browser);
		await page.goto(`${server.url}${path('/review')}`);
		await expect(page.getByRole('heading', { level: 1, name: say('review_title') })).toBeVisible();
		// The header offers a reviewer the way back here.
		await expect(
			page.getByRole('navigation', { name: say('layout_nav_label') }).getByRole('link', { name: say('common_review') })
		).toBeVisible();
		await screenshots(page, testInfo, `review-queue-${locale}`);

		await tabTo(page, page.getByRole('link', { name: kim }));
		await page.keyboard.press('Enter');
		await expect(page.getByRole('heading', { level: 1, name: kim })).toBeVisible();
		await expect(page.getByText(say('review_others_hidden'))).toBeVisible();
		await screenshots(page, testInfo, `review-application-${locale}`);

		// A reject without a comment is refused, and focus lands on the comment to fix.
		await tabTo(page, page.getByRole('radio', { name: say('review_vote_approve') }));
		await page.keyboard.press(next);
		await expect(page.getByRole('radio', { name: say('review_vote_reject') })).toBeChecked();
		await tabTo(page, page.locator('input[name="score.fit"][value="1"]'));
		for (let i = 0; i < 3; i++) await page.keyboard.press(next);
		await expect(page.locator('input[name="score.fit"][value="4"]')).toBeChecked();
		await page.keyboard.press('Tab');
		await expect(page.locator('input[name="score.effort"][value="1"]')).toBeFocused();
		await page.keyboard.press('Space');
		for (let i = 0; i < 4; i++) await page.keyboard.press(next);
		await expect(page.locator('input[name="score.effort"][value="5"]')).toBeChecked();
		await tabTo(page, page.getByRole('button', { name: say('review_cast_vote') }));
		await page.keyboard.press('Enter');
		const comment = page.getByRole('textbox', { name: new RegExp(say('review_comment_label')) });
		await expect(page.getByRole('alert')).toContainText(say('form_invalid'));
		await expect(comment).toBeFocused();
		await expect(comment).toHaveAccessibleDescription(wordsOf(locale).literal(say('review_error_reject_reason')));
		await screenshots(page, testInfo, `review-refused-${locale}`);

		await page.keyboard.type('The motivation does not say what they would do.');
		await tabTo(page, page.getByRole('button', { name: say('review_cast_vote') }));
		await page.keyboard.press('Enter');
		await expect(
			page.getByRole('status').getByText(say('review_vote_recorded', { vote: say('review_vote_reject') }))
		).toBeVisible();
		await expect(page.getByText(say('review_others_none'))).toBeVisible();
		await expect(
			page.getByText(say('review_score_line', { label: 'Fit with the community', score: count(4), max: count(5) }))
		).toBeVisible();

		await page.goto(`${server.url}${path('/review')}?tab=voted`);
		await expect(page.getByRole('link', { name: kim })).toBeVisible();
		await screenshots(page, testInfo, `review-voted-${locale}`);
	});
