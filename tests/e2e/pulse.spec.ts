import { type Page } from '@playwright/test';
import { githubIssue, githubPullRequest, startFakeGitHub, type FakeGitHub } from '../helpers/fake-github';
import { startServer, type RunningServer } from '../helpers/server';
import { expect, test } from './fixtures';

// The built server with GITHUB_API_URL pointing at a fake GitHub on loopback, in real Chromium.

const HOSTILE = '<img src=x onerror=alert(1)>';
const issues = [
	githubIssue(11, {
		title: HOSTILE,
		labels: [{ name: '<script>alert(2)</script>', color: 'd73a4a' }],
		comments: 1,
		updated_at: new Date(Date.now() - 3 * 3600_000).toISOString()
	}),
	githubPullRequest(12),
	githubIssue(13, {
		title: 'Translate the apply page',
		user: { login: 'octocat' },
		labels: [
			{ name: 'good first issue', color: 'ededed' },
			{ name: 'help wanted', color: '5319e7' }
		],
		comments: 5,
		updated_at: new Date(Date.now() - 2 * 24 * 3600_000).toISOString()
	})
];

let github: FakeGitHub;
let server: RunningServer;

test.beforeAll(async () => {
	github = await startFakeGitHub({ kind: 'issues', issues });
	// A one-second TTL lets the stale-result test see a fresh upstream failure without waiting long.
	server = await startServer({
		env: { COMMUNITY_PULSE_REPO: 'acme/portal', GITHUB_API_URL: github.url, COMMUNITY_PULSE_TTL_SECONDS: '1' }
	});
});
test.afterAll(async () => {
	await server?.stop();
	await github?.close();
});
test.beforeEach(() => github.respondWith({ kind: 'issues', issues }));

function watchDialogs(page: Page) {
	const dialogs: string[] = [];
	page.on('dialog', (dialog) => {
		dialogs.push(dialog.message());
		void dialog.dismiss();
	});
	return dialogs;
}

const cards = (page: Page) => page.getByTestId('pulse-card');
const failure = (page: Page) => page.getByRole('alert').filter({ hasText: 'could not be fetched' });

test('renders a card per issue: linked title, coloured labels, comments, author, time since update', async ({
	page
}) => {
	await page.goto(server.url + '/');
	await expect(cards(page)).toHaveCount(2);
	const card = cards(page).nth(1);
	const title = card.getByRole('link', { name: 'Translate the apply page' });
	await expect(title).toHaveAttribute('href', 'https://github.com/acme/portal/issues/13');
	await expect(card).toContainText('octocat');
	await expect(card).toContainText('5 comments');
	await expect(card).toContainText('updated 2 days ago');
	const light = card.getByText('good first issue');
	await expect(light).toHaveCSS('background-color', 'rgb(237, 237, 237)');
	await expect(light).toHaveCSS('color', 'rgb(0, 0, 0)');
	const dark = card.getByText('help wanted');
	await expect(dark).toHaveCSS('background-color', 'rgb(83, 25, 231)');
	await expect(dark).toHaveCSS('color', 'rgb(255, 255, 255)');
	await expect(cards(page).first()).toContainText('1 comment');
	await expect(cards(page).first()).toContainText('3 hours ago');
	await expect(page.getByText('Pull request 12')).toHaveCount(0);
	await expect(failure(page)).toHaveCount(0);
});

test('a hostile title and label stay text: no dialog, no img element', async ({ page }) => {
	const dialogs = watchDialogs(page);
	await page.goto(server.url + '/');
	const card = cards(page).first();
	await expect(card.getByRole('link', { name: HOSTILE })).toBeVisible();
	await expect(card.getByText('<script>alert(2)</script>')).toBeVisible();
	await expect(page.locator('main img')).toHaveCount(0);
	await expect(page.locator('main script')).toHaveCount(0);
	await page.waitForTimeout(500);
	expect(dialogs).toEqual([]);
});

// The server draws the feed (issue 61: the home page has no scripts): a cold cache GitHub does not answer
// holds the page for a short bounded wait, then says the issues are not available right now.
test('a cold cache GitHub does not answer: the page comes within the bounded wait and says so, never hangs', async ({
	page
}) => {
	const silent = await startFakeGitHub({ kind: 'hang' });
	const cold = await startServer({ env: { COMMUNITY_PULSE_REPO: 'acme/portal', GITHUB_API_URL: silent.url } });
	try {
		const started = Date.now();
		await page.goto(cold.url + '/');
		await expect(failure(page)).toBeVisible();
		// PULSE_PAGE_WAIT_MS (1.5 s) and the page's own time, far under GitHub's 5 s timeout.
		expect(Date.now() - started).toBeLessThan(4_500);
		await expect(failure(page).getByRole('link')).toHaveAttribute('href', 'https://github.com/acme/portal/issues');
		await expect(cards(page)).toHaveCount(0);
		await expect(page.getByRole('status')).toHaveCount(0);
	} finally {
		await cold.stop();
		await silent.close();
	}
});

test('the browser never asks for the feed: a refused /api/community-pulse (an edge 429) leaves the cards drawn', async ({
	browser
}) => {
	const context = await browser.newContext();
	const page = await context.newPage();
	const asked: string[] = [];
	page.on('request', (request) => {
		if (new URL(request.url()).pathname === '/api/community-pulse') asked.push(request.url());
	});
	await page.route('**/api/community-pulse', (route) => route.fulfill({ status: 429, body: '' }));
	await page.goto(server.url + '/');
	await expect(cards(page)).toHaveCount(2);
	await expect(failure(page)).toHaveCount(0);
	await page.reload();
	await expect(cards(page)).toHaveCount(2);
	expect(asked).toEqual([]);
	await context.close();
});

// Last: the failure it provokes suppresses upstream requests for the next 60 seconds.
test('a failing feed shows the message and the link to the issue list, and none of the earlier cards', async ({
	page
}) => {
	await page.goto(server.url + '/');
	await expect(cards(page)).toHaveCount(2);

	github.respondWith({ kind: 'status', status: 500 });
	await page.waitForTimeout(1_200); // past the one-second TTL: the next request goes upstream and fails
	await page.reload();
	await expect(failure(page)).toBeVisible();
	await expect(failure(page).getByRole('link')).toHaveAttribute('href', 'https://github.com/acme/portal/issues');
	await expect(cards(page)).toHaveCount(0);
	await expect(page.getByText('Translate the apply page')).toHaveCount(0);
});
