// The home page behind the shipped nginx limits. The server draws the feed (issue 61: the home page has no
// scripts), so the edge's limit on /api/community-pulse no longer reaches the page: once a client has spent
// the feed's allowance, the feed answers 429 and the page still shows the cards (docs/community-pulse.md).
import { githubIssue, startFakeGitHub, type FakeGitHub } from '../helpers/fake-github';
import { NGINX_BIN, NGINX_MISSING_REASON, roomInMinute, startNginx, type RunningNginx } from '../helpers/nginx';
import { startServer, type RunningServer } from '../helpers/server';
import { expect, test } from './fixtures';

test.skip(!NGINX_BIN, NGINX_MISSING_REASON);
test.describe.configure({ timeout: 120_000 });

let github: FakeGitHub | undefined;
let portal: RunningServer | undefined;
let edge: RunningNginx | undefined;

test.beforeAll(async () => {
	github = await startFakeGitHub({ kind: 'issues', issues: [githubIssue(7, { title: 'Welcome new members' })] });
	portal = await startServer({ env: { COMMUNITY_PULSE_REPO: 'acme/portal', GITHUB_API_URL: github.url } });
	edge = await startNginx({ upstream: `127.0.0.1:${portal.port}`, mode: 'enforce' });
});
test.afterAll(async () => {
	await edge?.stop();
	await portal?.stop();
	await github?.close();
});

test("an edge 429 on the community feed's API leaves the home page's cards drawn by the server", async ({ page }) => {
	// One clock minute (nginx's window) for the whole test.
	await roomInMinute(40);
	await page.goto(`${edge!.url}/`);
	await expect(page.getByTestId('pulse-card')).toHaveCount(1);

	// Spend this address's allowance on the feed (the browser connects from loopback too).
	let status = 0;
	for (let i = 0; i < 200 && status !== 429; i++) {
		const response = await fetch(`${edge!.url}/api/community-pulse`);
		await response.arrayBuffer();
		status = response.status;
	}
	expect(status).toBe(429);

	await page.reload();
	await expect(page.getByTestId('pulse-card')).toHaveCount(1);
	await expect(page.getByText('Welcome new members')).toBeVisible();
	await expect(page.getByRole('alert').filter({ hasText: 'could not be fetched' })).toHaveCount(0);
});
