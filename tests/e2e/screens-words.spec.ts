import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { RunningServer } from '../helpers/server';
import { Receiver, newSecret } from '../helpers/receiver';
import { signIn } from '../helpers/siwe';
import { DESKTOP, PHONE, admin, expect, pageAs, startPortal, test } from './fixtures';

// Issue 61's minor items, as an admin, a reviewer and an applicant of one community read them: from a
// new community's empty pages to a busy one's tables. In order: the empty pages need no application yet.
let server: RunningServer;
const reviewer = privateKeyToAccount(generatePrivateKey());
const receivers = [new Receiver(), new Receiver()];

const post = async (path: string, fields: Record<string, string>, account: PrivateKeyAccount) =>
	fetch(`${server.url}${path}`, {
		method: 'POST',
		body: new URLSearchParams(fields),
		headers: { cookie: await signIn(server.url, account), origin: server.url, accept: 'text/html' },
		redirect: 'manual'
	});

async function apply(displayName: string): Promise<PrivateKeyAccount> {
	const applicant = privateKeyToAccount(generatePrivateKey());
	const answer = await post(
		'/apply',
		{ displayName, motivation: 'I would like to help with the documentation.', contact: '' },
		applicant
	);
	expect(answer.status).toBe(303);
	return applicant;
}

test.describe.configure({ mode: 'serial', timeout: 120_000 });

test.beforeAll(async () => {
	test.setTimeout(180_000);
	await Promise.all(receivers.map((r) => r.start()));
	server = await startPortal({
		ADMIN_ADDRESSES: admin.address,
		REVIEWER_ADDRESSES: reviewer.address,
		REVIEW_QUORUM: '1',
		WEBHOOK_URLS: receivers.map((r) => r.url).join(','),
		WEBHOOK_SECRET: newSecret()
	});
});
test.afterAll(async () => {
	await server?.stop();
	await Promise.all(receivers.map((r) => r.stop()));
});

test('a new community: /admin and /review say what they will hold and what happens next', async ({ browser }) => {
	const page = await pageAs(browser, server, admin);
	await page.goto(`${server.url}/admin`);
	const empty = page.getByRole('region', { name: 'No applications yet' });
	await expect(empty).toContainText('When members apply, their applications appear here, waiting for review.');
	await expect(empty.getByRole('link', { name: 'Set up the application form' })).toHaveAttribute('href', '/admin/form');
	await expect(empty.getByRole('link', { name: 'Add reviewers' })).toHaveAttribute('href', '/admin/reviewers');
	await expect(page.getByText('No applications match.')).toHaveCount(0);
	// In the page's own language, its links under its prefix.
	await page.goto(`${server.url}/es/admin`);
	await expect(page.getByRole('region', { name: 'Todavía no hay solicitudes' })).toBeVisible();
	await expect(page.getByRole('link', { name: 'Añadir revisores' })).toHaveAttribute('href', '/es/admin/reviewers');

	const review = await pageAs(browser, server, reviewer);
	await review.goto(`${server.url}/review`);
	await expect(review.getByText('No application is waiting for review yet.')).toBeVisible();
	await expect(review.getByText('every pending application has it')).toHaveCount(0);
});

test('right after submitting, the applicant’s history shows the submission, not "No changes yet."', async ({
	browser
}) => {
	const applicant = await apply('Fresh Fay');
	const page = await pageAs(browser, server, applicant, { viewport: PHONE });
	await page.goto(`${server.url}/apply`);
	const history = page.getByRole('article').getByRole('list').last();
	await expect(history.getByRole('listitem')).toHaveCount(1);
	await expect(history.getByRole('listitem')).toContainText(/Submitted[\s\S]*by you/);
	await expect(page.getByText('No changes yet.')).toHaveCount(0);
	// The admin reads the same start, by the applicant.
	const adminPage = await pageAs(browser, server, admin);
	await adminPage.goto(`${server.url}/admin`);
	await adminPage.getByRole('link', { name: 'Fresh Fay' }).click();
	const adminHistory = adminPage.getByRole('region', { name: /History/ });
	await expect(adminHistory.getByRole('listitem').first()).toContainText(/Submitted[\s\S]*by the applicant/);
});

test('the review table’s filters name states in the tabs’ and badges’ words, not their codes', async ({ browser }) => {
	const page = await pageAs(browser, server, admin);
	await page.goto(`${server.url}/admin`);
	const allowlist = page.getByRole('combobox', { name: 'Allowlist' });
	await expect(allowlist.getByRole('option')).toHaveText(['any', 'Waiting to be added', 'Added', 'Failed']);
	const distribution = page.getByRole('combobox', { name: 'Token distribution' });
	await expect(distribution.getByRole('option')).toHaveText(['any', 'Waiting to be sent', 'Sent', 'Failed']);
	await page.goto(`${server.url}/es/admin`);
	const codes = await page.locator('.filters option').allTextContents();
	for (const code of ['pending', 'added', 'sent', 'failed']) expect(codes).not.toContain(code);
});

test('a rejected row shows no waiting time and no quorum "Ready"; a pending one with its votes does', async ({
	browser
}) => {
	const ids: Record<string, string> = {};
	const page = await pageAs(browser, server, admin);
	for (const name of ['Rejected Rita', 'Pending Pia']) {
		await apply(name);
		await page.goto(`${server.url}/admin?q=${encodeURIComponent(name)}`);
		ids[name] = new URL((await page.getByRole('link', { name }).getAttribute('href'))!, server.url).pathname.split(
			'/'
		)[3]!;
		// One vote: the quorum (REVIEW_QUORUM=1) is reached.
		expect((await post(`/review/${ids[name]}?/vote`, { vote: 'reject', comment: 'Too vague.' }, reviewer)).status).toBe(
			303
		);
	}
	const rejected = await post(
		`/admin/applications/${ids['Rejected Rita']}?/transition`,
		{ field: 'review', from: 'pending', to: 'rejected', reason: 'Too vague.', confirm: 'yes' },
		admin
	);
	expect(rejected.status).toBe(303);
	for (const viewport of [DESKTOP, PHONE]) {
		await page.setViewportSize(viewport);
		await page.goto(`${server.url}/admin?q=Ri`);
		await page.goto(`${server.url}/admin`);
		const rita = page.getByRole('row', { name: /Rejected Rita/ });
		const pia = page.getByRole('row', { name: /Pending Pia/ });
		await expect(pia.getByText('Ready')).toBeVisible();
		await expect(pia.locator('time')).toHaveText(/\d+ min/);
		await expect(rita.getByText('Ready')).toHaveCount(0);
		await expect(rita.locator('time')).toHaveCount(0);
	}
});

test('/admin/reviewers dates a reviewer as every other page does, in the page’s locale', async ({ browser }) => {
	const added = privateKeyToAccount(generatePrivateKey());
	expect((await post('/admin/reviewers?/add', { address: added.address }, admin)).status).toBe(303);
	const page = await pageAs(browser, server, admin);
	await page.goto(`${server.url}/admin/reviewers`);
	const row = page.getByRole('rowheader', { name: new RegExp(added.address, 'i') });
	// The one <Time> of every page: the reader's zone and how long ago, UTC on hover only.
	await expect(row.locator('time')).toHaveText(/ · (just now|\d+ minutes? ago)$/);
	await expect(row.locator('time')).toHaveAttribute('title', / UTC$/);
	await page.goto(`${server.url}/es/admin/reviewers`);
	await expect(page.getByRole('rowheader', { name: new RegExp(added.address, 'i') }).locator('time')).toHaveText(
		/ · (justo ahora|hace \d+ minutos?)$/
	);
});

test('an admin reads the settings a step needs in words, the variable’s name as the detail', async ({ browser }) => {
	const page = await pageAs(browser, server, admin);
	await page.goto(`${server.url}/admin`);
	const needs = page.getByRole('region', { name: 'On-chain steps through the Safe' }).getByRole('listitem').first();
	await expect(needs).toContainText(
		'Allowlist: finding it on chain needs a connection to Polygon (setting POLYGON_RPC_URL), the allowlist contract’s address (setting ALLOWLIST_CONTRACT)'
	);
	await page.goto(`${server.url}/es/admin`);
	await expect(page.getByText(/una conexión con Polygon \(variable POLYGON_RPC_URL\)/).first()).toBeVisible();
});

test('the webhook page shows 20 deliveries a page, with a link to the older ones', async ({ browser }) => {
	// Each submission sends one delivery to each of the two receivers: 22 or more deliveries.
	for (let i = 0; i < 11; i++) await apply(`Hooked ${i}`);
	const page = await pageAs(browser, server, admin, { viewport: PHONE });
	await page.goto(`${server.url}/admin/webhooks`);
	const deliveries = page.getByRole('region', { name: 'Deliveries' });
	await expect(deliveries.locator('tbody tr')).toHaveCount(20);
	const older = page
		.getByRole('navigation', { name: 'Delivery pages' })
		.getByRole('link', { name: 'Older deliveries' });
	await older.click();
	await expect(page).toHaveURL(/\/admin\/webhooks\?before=\d+$/);
	await expect(deliveries.locator('tbody tr')).not.toHaveCount(0);
	const first = await deliveries.locator('tbody tr').count();
	expect(first).toBeLessThanOrEqual(20);
	await expect(page.getByRole('link', { name: 'Newest deliveries' })).toHaveAttribute('href', '/admin/webhooks');
	// Less than a screenful per card, not 14,000 px: 20 cards stay well under 8,000 px at 390 px.
	await page.getByRole('link', { name: 'Newest deliveries' }).click();
	expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeLessThan(8000);
});

test('a reviewer is named by the display name they applied with, their short address beside it', async ({
	browser
}) => {
	const named = privateKeyToAccount(generatePrivateKey());
	expect((await post('/admin/reviewers?/add', { address: named.address }, admin)).status).toBe(303);
	// The reviewer applied once, as any member may: that name is theirs; right-to-left text stays isolated.
	const name = 'روزا Rosa';
	const applied = await post(
		'/apply',
		{ displayName: name, motivation: 'I would like to review.', contact: '' },
		named
	);
	expect(applied.status).toBe(303);
	await apply('Voted Vera');
	const page = await pageAs(browser, server, admin);
	await page.goto(`${server.url}/admin?q=Voted%20Vera`);
	const id = new URL(
		(await page.getByRole('link', { name: 'Voted Vera' }).getAttribute('href'))!,
		server.url
	).pathname.split('/')[3]!;
	expect((await post(`/review/${id}?/vote`, { vote: 'approve', comment: 'Clear and useful.' }, named)).status).toBe(
		303
	);

	await page.goto(`${server.url}/admin/reviewers`);
	const row = page.getByRole('rowheader', { name: new RegExp(named.address, 'i') });
	await expect(row.locator('bdi')).toHaveText(name);
	// A reviewer who never applied stays an address.
	await expect(page.getByRole('rowheader', { name: new RegExp(reviewer.address, 'i') }).locator('bdi')).toHaveCount(0);

	await page.goto(`${server.url}/admin/applications/${id}`);
	const vote = page.locator('.votes > li').filter({ hasText: 'Clear and useful.' });
	await expect(vote.locator('bdi')).toHaveText(name);
	await expect(vote.locator('code')).toHaveText(/^0x[0-9a-fA-F]{4}…[0-9a-fA-F]{4}$/);
	await expect(vote.locator('code')).toHaveAttribute('title', new RegExp(named.address, 'i'));
});
