import { deflateSync, crc32 } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { postForm } from '../helpers/forms';
import type { RunningServer } from '../helpers/server';
import { signIn } from '../helpers/siwe';
import { admin, expect, pageAs, screenshots, startPortal, test } from './fixtures';

// Issue 61 and 59 in Chromium: the form builder's error summary says each refused field once, as a link to
// it, and names a multiple choice's condition as its field does ("Answer includes"); what applicants and the
// community type keeps its own direction in the builder's preview and on /apply (dir="auto", <bdi>); the
// logo upload on /admin/settings shows its progress as /apply's files do, and still saves without JavaScript.
let server: RunningServer;

test.beforeAll(async () => {
	server = await startPortal({ ADMIN_ADDRESSES: admin.address });
	const fields: Record<string, string> = {
		questionCount: '2',
		'questions.0.key': 'colours',
		'questions.0.label': 'Colours',
		'questions.0.type': 'multiple_choice',
		'questions.0.options': 'Red\nBlue',
		'questions.1.key': 'why',
		'questions.1.label': 'Why red?',
		'questions.1.type': 'long_text',
		'questions.1.showIfKey': 'colours',
		'questions.1.showIfEquals': 'Red'
	};
	const saved = await postForm(`${server.url}/admin/form?/save`, fields, { cookie: await signIn(server.url, admin) });
	expect(saved.status).toBe(303);
});
test.afterAll(async () => {
	await server?.stop();
});

test.describe.configure({ timeout: 180_000 });

test('the builder’s summary names each refused field once, as a link, and a multiple choice’s condition as its field does', async ({
	browser
}, testInfo) => {
	// Without JavaScript, so the condition is posted as it stands (the page's script keeps it one of the options).
	const page = await pageAs(browser, server, admin, { scripts: 'off' });
	await page.goto(`${server.url}/admin/form`);
	const item = (i: number) => page.locator('.questions .item').nth(i).locator(':scope > details > summary');
	const save = page.getByRole('button', { name: 'Save as a new version' });
	// "Red" leaves the choice: the condition of question 2 names an option that is no more.
	await item(0).click();
	await page.locator('[name="questions.0.options"]').fill('Green\nBlue');
	await save.click();
	const alert = page.getByRole('alert');
	const condition = alert.getByRole('link', { name: 'Question 2: Answer includes', exact: true });
	await expect(condition).toHaveAttribute('href', '#field-questions-1-showIfEquals');
	await expect(alert.locator('li')).toHaveText([
		'Question 2: Answer includes: “Show only if” must be one of the options of “Colours”.'
	]);
	await expect(alert).not.toContainText('Is answered');
	// The field says the same name.
	await expect(page.locator('#field-questions-1-showIfEquals')).toHaveAccessibleName('Answer includes');
	// axe runs as a script in the page: not on a page whose scripts are off (the builder's is checked elsewhere).
	await screenshots(page, testInfo, 'admin-form-summary-condition', { axe: false });

	// A key the server refuses: its message names the field, so the entry says it once, all of it the link.
	// The refused page opens the refused question; the choice is opened again to put "Red" back.
	if (!(await page.locator('[name="questions.0.options"]').isVisible())) await item(0).click();
	await page.locator('[name="questions.0.options"]').fill('Red\nBlue');
	if (!(await page.locator('[name="questions.1.key"]').isVisible())) await item(1).click();
	await page.locator('[name="questions.1.key"]').fill('Why Red');
	await save.click();
	const message = 'Key must start with a-z and have only a-z, 0-9 and _, up to 40 characters.';
	const key = alert.getByRole('link', { name: `Question 2: ${message}`, exact: true });
	await expect(key).toHaveAttribute('href', '#field-questions-1-key');
	await expect(alert.locator('li')).toHaveText([`Question 2: ${message}`]);
	await screenshots(page, testInfo, 'admin-form-summary-key', { axe: false });
});

test('what people type keeps its own direction: the builder’s preview and /apply (dir="auto", labels in <bdi>)', async ({
	browser
}) => {
	const page = await pageAs(browser, server, admin);
	await page.goto(`${server.url}/admin/form`);
	const preview = page.getByRole('region', { name: 'Preview' });
	await expect(preview.locator('textarea[name="answers.why"]')).toHaveAttribute('dir', 'auto');
	await expect(preview.locator('legend bdi')).toHaveText('Colours');

	const applicant = await pageAs(browser, server, privateKeyToAccount(generatePrivateKey()));
	await applicant.goto(`${server.url}/ar/apply`);
	for (const name of ['displayName', 'motivation', 'contact', 'answers.why'])
		await expect(applicant.locator(`[name="${name}"]`), name).toHaveAttribute('dir', 'auto');
	// The community's English label on an Arabic page keeps its question mark at its end.
	await expect(applicant.locator('label bdi', { hasText: 'Why red?' })).toHaveCount(1);
	await expect(applicant.locator('label.choice bdi')).toHaveText(['Red', 'Blue']);
});

/** A PNG of `side`×`side` pixels of noise (it does not compress): about 3·side² bytes. */
function noisePng(side: number): Buffer {
	const chunk = (type: string, data: Buffer) => {
		const length = Buffer.alloc(4);
		length.writeUInt32BE(data.length);
		const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
		const crc = Buffer.alloc(4);
		crc.writeUInt32BE(crc32(body));
		return Buffer.concat([length, body, crc]);
	};
	const header = Buffer.alloc(13);
	header.writeUInt32BE(side, 0);
	header.writeUInt32BE(side, 4);
	header.set([8, 2, 0, 0, 0], 8);
	const rows = Buffer.concat(
		Array.from({ length: side }, () => Buffer.concat([Buffer.from([0]), randomBytes(side * 3)]))
	);
	return Buffer.concat([
		Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
		chunk('IHDR', header),
		chunk('IDAT', deflateSync(rows, { level: 0 })),
		chunk('IEND', Buffer.alloc(0))
	]);
}

test('the logo’s upload on /admin/settings shows its progress, then the saved logo; without JavaScript it saves too', async ({
	browser
}, testInfo) => {
	const page = await pageAs(browser, server, admin);
	await page.goto(`${server.url}/admin/settings`);
	const logo = noisePng(400); // about 470 KiB, under the 512 KiB limit
	expect(logo.length).toBeLessThan(512 * 1024);
	await page.locator('input[name="logo"]').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: logo });
	// A slow uplink (about 100 KiB/s), so the upload takes a few seconds to watch.
	const cdp = await page.context().newCDPSession(page);
	await cdp.send('Network.enable');
	await cdp.send('Network.emulateNetworkConditions', {
		offline: false,
		latency: 20,
		downloadThroughput: -1,
		uploadThroughput: 100 * 1024
	});
	await page.getByRole('button', { name: 'Save the look' }).click();
	const bar = page.locator('#settings-form progress');
	await expect(bar).toBeVisible();
	await expect(page.locator('#settings-form [role="status"]')).toContainText(/Sending… \d+%/);
	await screenshots(page, testInfo, 'settings-logo-uploading', { axe: false });
	await cdp.send('Network.emulateNetworkConditions', {
		offline: false,
		latency: 0,
		downloadThroughput: -1,
		uploadThroughput: -1
	});
	await expect(page.getByText('Saved: every page shows it from its next request.')).toBeVisible({ timeout: 60_000 });
	await expect(bar).toHaveCount(0);
	await expect(page.locator('.current img')).toBeVisible();
	// The page stays with what is saved; the chosen file is let go, so a next save does not send it again.
	await expect(page.locator('input[name="logo"]')).toHaveValue('');
	await screenshots(page, testInfo, 'settings-logo-saved');

	// Without JavaScript the same form posts itself and saves (a smaller logo this time).
	const plain = await pageAs(browser, server, admin, { scripts: 'off' });
	await plain.goto(`${server.url}/admin/settings`);
	await plain
		.locator('input[name="logo"]')
		.setInputFiles({ name: 'small.png', mimeType: 'image/png', buffer: noisePng(16) });
	await plain.getByRole('button', { name: 'Save the look' }).click();
	await expect(plain.getByText('Saved: every page shows it from its next request.')).toBeVisible();
	await expect(plain.locator('#settings-form progress')).toHaveCount(0);
});
