import type { Frame, Page } from '@playwright/test';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { getPage, postForm } from '../helpers/forms';
import type { RunningServer } from '../helpers/server';
import { signIn } from '../helpers/siwe';
import { PHONE, admin, expect, pageAs, screenshots, startPortal, test } from './fixtures';
import { JOURNEY_LOCALES, wordsOf } from './words';

// Issue 58: a reviewer sees a PDF's pages, drawn by PDF.js in a frame sandboxed to scripts alone (an
// opaque origin), which gets the bytes from the page (docs/decisions/0052-pdf-previews-drawn-in-an-opaque-frame.md).
// The frame cannot reach the portal's page, cookies or storage; a PDF it cannot read says so in the page.
let server: RunningServer;
const reviewer = privateKeyToAccount(generatePrivateKey());
const applicant = privateKeyToAccount(generatePrivateKey());
const NAME = 'Grace Pages';

/** A PDF of one page per text, each in large black Helvetica, with a correct cross-reference table. */
function pdf(texts: string[]): Buffer {
	const pages = texts.map((_, i) => 3 + i * 2);
	const objects = [
		'<< /Type /Catalog /Pages 2 0 R >>',
		`<< /Type /Pages /Kids [${pages.map((n) => `${n} 0 R`).join(' ')}] /Count ${texts.length} >>`,
		...texts.flatMap((text, i) => {
			const stream = `BT /F1 48 Tf 72 700 Td (${text}) Tj ET 0 0 0 rg 72 100 468 400 re f`;
			return [
				`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${pages[i]! + 1} 0 R /Resources << /Font << /F1 ${3 + texts.length * 2} 0 R >> >> >>`,
				`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`
			];
		}),
		'<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'
	];
	let out = '%PDF-1.4\n';
	const offsets: number[] = [];
	objects.forEach((body, i) => {
		offsets.push(out.length);
		out += `${i + 1} 0 obj\n${body}\nendobj\n`;
	});
	const xref = out.length;
	out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
	for (const at of offsets) out += `${String(at).padStart(10, '0')} 00000 n \n`;
	out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
	return Buffer.from(out, 'latin1');
}

const REPORT = pdf(['First page', 'Second page', 'Third page']);
// Starts as a PDF does (so it is stored as one) but is nothing PDF.js can read.
const BROKEN = Buffer.from('%PDF-1.4\nthis is not a PDF at all\n%%EOF\n', 'latin1');

test.beforeAll(async () => {
	server = await startPortal({ ADMIN_ADDRESSES: admin.address, REVIEWER_ADDRESSES: reviewer.address });
	const saved = await postForm(
		`${server.url}/admin/form?/save`,
		{
			questionCount: '1',
			'questions.0.key': 'work',
			'questions.0.label': 'Your work',
			'questions.0.type': 'file',
			'questions.0.accept': ['application/pdf'],
			'questions.0.files': '2',
			'questions.0.size': '1'
		},
		{ cookie: await signIn(server.url, admin) }
	);
	expect(saved.status).toBe(303);
	const sent = await postForm(
		`${server.url}/apply`,
		{
			displayName: NAME,
			motivation: 'Pages to read.',
			'answers.work': [
				new File([new Uint8Array(REPORT)], 'report.pdf', { type: 'application/pdf' }),
				new File([new Uint8Array(BROKEN)], 'broken.pdf', { type: 'application/pdf' })
			]
		},
		{ cookie: await signIn(server.url, applicant) }
	);
	expect(sent.status).toBe(303);
});
test.afterAll(async () => {
	await server?.stop();
});

/** The path of the application's review page, as the reviewer's queue links it. */
async function reviewPath(): Promise<string> {
	const queue = await getPage(`${server.url}/review`, await signIn(server.url, reviewer));
	const id = new RegExp(`href="/review/([^"?#]+)"[^>]*>(?:<[^>]+>)*${NAME}`).exec(queue.body)?.[1];
	if (!id) throw new Error(`no application of ${NAME} in the reviewer's queue`);
	return `/review/${id}`;
}

/** The preview frame of `name`, once its first page is drawn. */
async function drawnFrame(page: Page, title: string): Promise<Frame> {
	const element = page.locator(`iframe[title="${title}"]`);
	await element.scrollIntoViewIfNeeded();
	await expect(element).toHaveAttribute('data-drawn', 'true', { timeout: 30_000 });
	const frame = await (await element.elementHandle()).contentFrame();
	if (!frame) throw new Error('no frame');
	return frame;
}

for (const locale of JOURNEY_LOCALES)
	test(`${locale}: a reviewer sees a PDF's pages drawn in a frame that cannot reach the portal`, async ({
		browser
	}, testInfo) => {
		test.setTimeout(120_000);
		const { say, path, count } = wordsOf(locale);
		const page = await pageAs(browser, server, reviewer, { locale });
		await page.goto(`${server.url}${path(await reviewPath())}`);
		await expect(page.getByRole('heading', { level: 1, name: NAME })).toBeVisible();

		const element = page.locator(`iframe[title="${say('files_preview_of', { name: 'report.pdf' })}"]`);
		// Scripts only: no same origin, no forms, no pop-ups, no navigation of the page.
		await expect(element).toHaveAttribute('sandbox', 'allow-scripts');
		expect(await element.getAttribute('src')).toBeNull();
		const frame = await drawnFrame(page, say('files_preview_of', { name: 'report.pdf' }));

		// The first page is drawn: a canvas as wide as the frame, with dark pixels (its words and its box).
		const first = await frame.evaluate(() => {
			const canvas = document.querySelector('canvas')!;
			const { data } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
			let dark = 0;
			for (let i = 0; i < data.length; i += 4) if (data[i]! < 64 && data[i + 3]! > 200) dark++;
			return { dark, share: dark / (canvas.width * canvas.height), label: canvas.getAttribute('aria-label') };
		});
		expect(first.share, JSON.stringify(first)).toBeGreaterThan(0.1);
		expect(first.label).toBe(say('files_preview_page', { page: count(1), pages: count(3) }));
		await expect(frame.locator('canvas')).toHaveCount(3);

		// An opaque origin: nothing of the portal's page, cookies or storage.
		const reach = await frame.evaluate(() => {
			const tries = {
				parentDocument: () => window.parent.document.title,
				cookie: () => document.cookie,
				storage: () => localStorage.length,
				topLocation: () => window.top!.location.href
			};
			return {
				origin: window.origin,
				...Object.fromEntries(
					Object.entries(tries).map(([name, run]) => {
						try {
							run();
							return [name, 'reached'];
						} catch (err) {
							return [name, (err as Error).name];
						}
					})
				)
			};
		});
		expect(reach).toEqual({
			origin: 'null',
			parentDocument: 'SecurityError',
			cookie: 'SecurityError',
			storage: 'SecurityError',
			topLocation: 'SecurityError'
		});
		// And it loads nothing but its script: its own policy (on top of the page's, which it inherits).
		expect(
			await frame.evaluate(() =>
				document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute('content')
			)
		).toMatch(/^default-src 'none'; script-src http:\/\/[^ ]+\/_app\/immutable\/workers\/pdf-frame-[\w-]+\.js;/);

		// The file itself is only ever an attachment, also where a preview was asked for.
		const href = await page
			.getByRole('link', { name: say('files_download', { name: 'report.pdf' }) })
			.getAttribute('href');
		const asked = await page.request.get(`${server.url}${href}?preview`);
		expect(asked.headers()['content-disposition']).toMatch(/^attachment; filename="report\.pdf"/);
		expect(asked.headers()['content-security-policy']).toBe('sandbox');

		// A PDF PDF.js cannot read: the page says so, in its language; the download link stays.
		await expect(page.getByText(say('files_preview_failed'))).toBeVisible({ timeout: 30_000 });
		await expect(page.getByRole('link', { name: say('files_download', { name: 'broken.pdf' }) })).toBeVisible();

		// By keyboard: the download link, then the preview, which scrolls with the keys.
		const link = page.getByRole('link', { name: say('files_download', { name: 'report.pdf' }) });
		await link.focus();
		await expect(link).toBeFocused();
		await page.keyboard.press('Tab');
		await expect(frame.locator('#pages')).toBeFocused();
		expect(await frame.locator('#pages').getAttribute('aria-label')).toBe(
			say('files_preview_of', { name: 'report.pdf' })
		);
		await page.keyboard.press('PageDown');
		await page.keyboard.press('PageDown');
		await expect.poll(() => frame.evaluate(() => document.getElementById('pages')!.scrollTop)).toBeGreaterThan(200);
		await screenshots(page, testInfo, `review-pdf-preview-${locale}`);
		// Drawn at one width, shown at another (a phone turned, a window narrowed): the pages follow the
		// frame, nothing to scroll sideways in it.
		await page.setViewportSize(PHONE);
		await expect
			.poll(() =>
				frame.evaluate(
					() => document.getElementById('pages')!.scrollWidth - document.getElementById('pages')!.clientWidth
				)
			)
			.toBeLessThanOrEqual(0);
	});
