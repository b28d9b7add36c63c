// Issue 61, what people see: nothing covers a control (the language offer is part of the page), links
// drawn as buttons are the height of buttons with their text centred, a vote lands where its
// confirmation and "Next" are, a rejected applicant reads the reason and the day at the top, the
// phone header is compact in every locale, and small targets are big enough (WCAG 2.5.8).
import { readFileSync } from 'node:fs';
import type { Browser, Locator, Page } from '@playwright/test';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { RunningServer } from '../helpers/server';
import { signIn } from '../helpers/siwe';
import { VISUAL_IDS, visualDatabases, type VisualDatabase } from '../helpers/visual-seed';
import {
	DESKTOP,
	PHONE,
	admin,
	axeViolations,
	expect,
	header,
	member,
	other,
	startPortal,
	tabTo,
	test
} from './fixtures';

const LOCALES = ['en', 'es', 'ar', 'pt-BR', 'zh-Hans'] as const;
type Locale = (typeof LOCALES)[number];
const prefix = (locale: Locale) => (locale === 'en' ? '' : `/${locale}`);
const say = (locale: Locale, key: string) =>
	(JSON.parse(readFileSync(`messages/${locale}.json`, 'utf8')) as Record<string, string>)[key]!;

let server: RunningServer;
const reviewer = other;

async function post(path: string, fields: Record<string, string>, account: PrivateKeyAccount) {
	const response = await fetch(`${server.url}${path}`, {
		method: 'POST',
		body: new URLSearchParams(fields),
		headers: { cookie: await signIn(server.url, account), origin: server.url, accept: 'text/html' },
		redirect: 'manual'
	});
	expect(response.status, `POST ${path}`).toBe(303);
	return response;
}

async function apply(name: string): Promise<PrivateKeyAccount> {
	const applicant = privateKeyToAccount(generatePrivateKey());
	await post(
		'/apply',
		{
			displayName: name,
			motivation: `${name} would like to help with the docs.`,
			contact: '',
			// The seeded form's own questions.
			'answers.github': 'https://github.com/example',
			'answers.role': 'Writing',
			'answers.weekly': 'on'
		},
		applicant
	);
	return applicant;
}

/** A page signed in as `account` (or no one), its browser preferring `locale`, at `viewport`. */
async function open(
	browser: Browser,
	account: PrivateKeyAccount | null,
	{ locale = 'en-US', viewport = PHONE }: { locale?: string; viewport?: { width: number; height: number } } = {}
): Promise<Page> {
	const context = await browser.newContext({ locale, viewport });
	if (account) {
		const [name, value] = (await signIn(server.url, account)).split(/=(.*)/s) as [string, string];
		await context.addCookies([{ name, value, url: server.url }]);
	}
	return context.newPage();
}

/** Whether `locator` is wholly inside the viewport. */
async function inView(page: Page, locator: Locator): Promise<boolean> {
	const box = (await locator.boundingBox())!;
	const { height, width } = page.viewportSize()!;
	// A pixel's room for sub-pixel rounding.
	return box.y >= -1 && box.y + box.height <= height + 1 && box.x >= -1 && box.x + box.width <= width + 1;
}

let db: VisualDatabase | undefined;
test.beforeAll(async () => {
	// The visual suite's busy community (a rubric, votes, a history, webhook deliveries).
	test.setTimeout(300_000);
	const { seeded } = await visualDatabases({
		applicant: member.address.toLowerCase(),
		rejected: privateKeyToAccount(`0x${'22'.repeat(32)}`).address.toLowerCase(),
		admin: admin.address.toLowerCase(),
		reviewer: reviewer.address.toLowerCase()
	});
	db = seeded;
	server = await startPortal({ ...seeded.env, ADMIN_ADDRESSES: admin.address, REVIEWER_ADDRESSES: reviewer.address });
});
test.afterAll(async () => {
	await server?.stop();
	db?.drop();
});

for (const locale of LOCALES) {
	test(`/${locale}/apply at 390 px: the language offer covers nothing; the submit button takes the click`, async ({
		browser
	}) => {
		// A browser that prefers another language than the page's is offered it.
		const page = await open(browser, privateKeyToAccount(generatePrivateKey()), {
			locale: locale === 'en' ? 'es-ES' : 'en-US'
		});
		await page.goto(`${server.url}${prefix(locale)}/apply`);
		const offered = locale === 'en' ? 'es' : 'en';
		const offer = page.getByRole('complementary', { name: say(offered, 'locale_switcher_label') });
		await expect(offer).toBeVisible();
		const submit = page.getByRole('button', { name: say(locale, 'apply_submit_button') });
		// The button at the bottom edge of the screen, where a bar fixed over the foot would sit.
		for (const block of ['end', 'center', 'start'] as const) {
			await submit.evaluate((el, block) => el.scrollIntoView({ block }), block);
			const hit = await submit.evaluate((el) => {
				const r = el.getBoundingClientRect();
				const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
				return at === el || el.contains(at);
			});
			expect(hit, `the submit button at the ${block} of the screen takes the click`).toBe(true);
		}
		// All of the page inside landmarks, the offer too (axe's region rule).
		const violations = await axeViolations(page, { rules: ['region'] });
		expect(violations.map((v) => v.nodes.map((n) => n.target.join(' '))).flat(), 'content outside landmarks').toEqual(
			[]
		);
		// Still dismissible.
		await offer.getByRole('button').click();
		await expect(offer).toHaveCount(0);
		await page.context().close();
	});
}

/** The link's box and how far its text's middle is from the box's middle, in px. */
async function buttonShape(link: Locator) {
	return link.evaluate((el) => {
		const box = el.getBoundingClientRect();
		const range = document.createRange();
		range.selectNodeContents(el);
		const text = range.getBoundingClientRect();
		return {
			height: box.height,
			offCentre: Math.abs(text.top + text.height / 2 - (box.top + box.height / 2))
		};
	});
}

test('links drawn as buttons are as tall as buttons, their text centred', async ({ browser }) => {
	for (const viewport of [PHONE, DESKTOP]) {
		const page = await open(browser, null, { viewport });
		await page.goto(`${server.url}/`);
		const signInLink = header(page).getByRole('link', { name: 'Sign in', exact: true });
		await expect(signInLink).toBeVisible();
		for (const link of [signInLink, page.getByRole('main').getByRole('link', { name: 'Sign in to apply' })]) {
			const shape = await buttonShape(link);
			// 40 px, as a <button>; 36 px in the compact phone header, as its other controls.
			expect(shape.height, `${await link.textContent()} at ${viewport.width} px`).toBeGreaterThanOrEqual(36);
			expect(shape.height, `${await link.textContent()} at ${viewport.width} px`).toBeLessThanOrEqual(44);
			expect(shape.offCentre, `${await link.textContent()}'s text centred`).toBeLessThanOrEqual(2);
		}
		await page.context().close();
	}
	// A signed-in admin's Safe batch buttons on /admin/batches.
	const page = await open(browser, admin, { viewport: DESKTOP });
	await page.goto(`${server.url}/admin/batches`);
	const button = page.getByRole('button').first();
	const height = (await button.boundingBox())!.height;
	const links = page.getByRole('main').locator('a.button');
	for (const link of await links.all()) {
		const shape = await buttonShape(link);
		expect(shape.height, 'a batch link').toBeCloseTo(height, 0);
		expect(shape.offCentre).toBeLessThanOrEqual(2);
	}
	await page.context().close();
});

test('after voting, the reviewer sees the confirmation and the link to the next application', async ({ browser }) => {
	await apply('Vote First');
	await apply('Vote Second');
	for (const viewport of [DESKTOP, PHONE]) {
		const page = await open(browser, reviewer, { viewport });
		await page.goto(`${server.url}/review`);
		await page.getByRole('link', { name: viewport === DESKTOP ? 'Vote First' : 'Vote Second' }).click();
		await page.getByRole('radio', { name: 'Approve' }).check();
		for (const picker of await page.locator('fieldset.score-picker').all()) {
			// The 1-5 squares in one row, even at 390 px.
			const tops = await picker
				.locator('label')
				.evaluateAll((labels) => labels.map((l) => Math.round(l.getBoundingClientRect().top)));
			expect(tops, 'one row of scores').toHaveLength(5);
			expect(new Set(tops).size, `the 1-5 scores in one row at ${viewport.width} px`).toBe(1);
			await picker.locator('input[value="4"]').check();
		}
		await page.getByRole('button', { name: /Cast vote|Change vote/ }).click();
		const confirmation = page.getByRole('status').filter({ hasText: 'Your vote is recorded' });
		await expect(confirmation).toBeVisible();
		const next = confirmation.getByRole('link');
		await expect(next).toBeVisible();
		// Let the scroll to the fragment happen, then look at what is on screen.
		await page.waitForTimeout(300);
		expect(await inView(page, confirmation), `confirmation on screen at ${viewport.width} px`).toBe(true);
		expect(await inView(page, next), `"Next" on screen at ${viewport.width} px`).toBe(true);
		await page.context().close();
	}
});

test('a rejected applicant reads the reason and the day they may apply again at the top of their page', async ({
	browser
}) => {
	const applicant = await apply('Rejected Rae');
	const page = await open(browser, admin, { viewport: DESKTOP });
	await page.goto(`${server.url}/admin`);
	const id = new URL(
		(await page.getByRole('link', { name: 'Rejected Rae' }).getAttribute('href'))!,
		server.url
	).pathname.split('/')[3]!;
	await page.context().close();
	const day = new Date(Date.now() + 40 * 86_400_000).toISOString().slice(0, 10);
	await post(
		`/admin/applications/${id}?/transition`,
		{
			field: 'review',
			from: 'pending',
			to: 'rejected',
			reason: 'Tell us what you would work on.',
			reapplyAfter: day,
			confirm: 'yes'
		},
		admin
	);
	const dayText = new Date(`${day}T00:00:00Z`).toLocaleDateString('en-GB', {
		day: 'numeric',
		month: 'long',
		year: 'numeric',
		timeZone: 'UTC'
	});
	for (const viewport of [PHONE, DESKTOP]) {
		const mine = await open(browser, applicant, { viewport });
		await mine.goto(`${server.url}/apply`);
		const application = mine.getByRole('article');
		// On the first screen, before the answers and the history.
		const reason = application.getByText('Tell us what you would work on.').first();
		const date = application.getByText(dayText).first();
		await expect(reason).toBeVisible();
		expect(await inView(mine, reason), `the reason on the first screen at ${viewport.width} px`).toBe(true);
		expect(await inView(mine, date), `the date on the first screen at ${viewport.width} px`).toBe(true);
		await mine.context().close();
	}
});

for (const locale of LOCALES) {
	test(`the phone header in ${locale} is compact, with a language control that looks like one`, async ({ browser }) => {
		for (const account of [null, admin]) {
			for (const width of [390, 320]) {
				const page = await open(browser, account, { locale, viewport: { width, height: 844 } });
				await page.goto(`${server.url}${prefix(locale)}/`);
				await page.waitForLoadState('networkidle');
				const height = (await header(page).boundingBox())!.height;
				expect(height, `header at ${width} px, ${account ? 'admin' : 'visitor'}`).toBeLessThanOrEqual(
					width >= 390 ? 80 : 96
				);
				// The language control: no browser disclosure triangle, a named button-like control.
				const summary = header(page).locator('details.locale > summary');
				expect(await summary.evaluate((el) => getComputedStyle(el).display)).not.toBe('list-item');
				await expect(summary).toContainText(say(locale, 'locale_switcher_label'));
				const box = (await summary.boundingBox())!;
				expect(box.height).toBeGreaterThanOrEqual(24);
				// Every nav link is reachable and nothing overflows sideways.
				for (const link of await header(page).getByRole('navigation').getByRole('link').all())
					await expect(link).toBeVisible();
				expect(
					await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
				).toBeLessThanOrEqual(0);
				await page.context().close();
			}
		}
		// At 1280 px a signed-in admin's header is one row on a page of the reading width too (it wrapped to two in
		// Spanish and Arabic on /apply, /admin/batches and an application: the header kept to the reading width).
		const wide = await open(browser, admin, { locale, viewport: DESKTOP });
		for (const path of ['/apply', '/admin/batches']) {
			await wide.goto(`${server.url}${prefix(locale)}${path}`);
			await wide.waitForLoadState('networkidle');
			const bar = header(wide);
			const tops = await Promise.all(
				[
					bar.locator('.brand'),
					bar.getByRole('navigation'),
					bar.getByRole('button', { name: say(locale, 'layout_sign_out') }),
					bar.locator('details.locale > summary')
				].map(async (part) => Math.round((await part.boundingBox())!.y))
			);
			expect(
				Math.max(...tops) - Math.min(...tops),
				`${path} at 1280 px: one row (tops ${tops.join(', ')})`
			).toBeLessThanOrEqual(16);
		}
		await wide.context().close();
	});
}

test('targets: row checkboxes on phone cards, choices beside their labels, the date field shows focus', async ({
	browser
}) => {
	await apply('Target Tess');
	const page = await open(browser, admin);
	await page.goto(`${server.url}/admin`);
	const boxes = page.locator('table').getByRole('checkbox', { name: /Select/ });
	expect(await boxes.count()).toBeGreaterThan(0);
	for (const box of await boxes.all()) {
		// The area that toggles the box (the box and its label) is at least 24 × 24.
		const area = await box.evaluate((el) => {
			const input = el as HTMLInputElement;
			const target = input.labels?.[0] ?? input;
			const r = target.getBoundingClientRect();
			return { width: r.width, height: r.height };
		});
		expect(area.width).toBeGreaterThanOrEqual(24);
		expect(area.height).toBeGreaterThanOrEqual(24);
	}
	// Clicking the edge of the label area toggles the box.
	const first = boxes.first();
	const label = first.locator('xpath=ancestor::label[1]');
	await label.scrollIntoViewIfNeeded();
	const labelBox = (await label.boundingBox())!;
	await page.mouse.click(labelBox.x + 2, labelBox.y + 2);
	await expect(first).toBeChecked();

	// The reject form's date field shows where focus is.
	await page.goto(`${server.url}/admin`);
	await page.getByRole('link', { name: 'Target Tess' }).click();
	await page.getByRole('heading', { level: 1 }).waitFor();
	const date = page.getByLabel(/Apply again from/);
	await tabTo(page, date, 120);
	const outline = await date.evaluate((el) => {
		const s = getComputedStyle(el);
		return { style: s.outlineStyle, width: parseFloat(s.outlineWidth), shadow: s.boxShadow };
	});
	expect(outline.style !== 'none' && outline.width >= 2, JSON.stringify(outline)).toBe(true);
	await page.context().close();
});

/** Words split across two lines (a word's range with rects on two lines) in `root`'s text. */
async function brokenWords(root: Locator): Promise<string[]> {
	return root.evaluate((el) => {
		const broken: string[] = [];
		const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
		for (let node = walker.nextNode(); node; node = walker.nextNode()) {
			const text = node.nodeValue ?? '';
			for (const match of text.matchAll(/[^\s-]+/g)) {
				const range = document.createRange();
				range.setStart(node, match.index);
				range.setEnd(node, match.index + match[0].length);
				const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
				if (tops.size > 1) broken.push(match[0]);
			}
		}
		return broken;
	});
}

test('minor: webhook words whole, badges on one line at 1280, no browser bullets, the bulk title inside its card', async ({
	browser
}) => {
	const page = await open(browser, admin, { viewport: DESKTOP });
	await page.goto(`${server.url}/admin/webhooks`);
	for (const viewport of [DESKTOP, PHONE]) {
		await page.setViewportSize(viewport);
		// A word longer than the cell may break; the seeded words all fit whole.
		// (The cells: on a phone the column names are visually hidden, in a 1 px box.)
		const broken = [];
		for (const body of await page.getByRole('main').locator('tbody').all()) broken.push(...(await brokenWords(body)));
		expect(broken, `webhook words at ${viewport.width} px`).toEqual([]);
	}

	await page.setViewportSize(DESKTOP);
	await page.goto(`${server.url}/admin`);
	const badges = page.locator('table .badge');
	expect(await badges.count()).toBeGreaterThan(0);
	for (const badge of await badges.all()) {
		const lines = await badge.evaluate((el) => {
			const lineHeight = parseFloat(getComputedStyle(el).lineHeight) || 20;
			return Math.round(el.getBoundingClientRect().height / lineHeight);
		});
		expect(lines, `badge "${await badge.textContent()}" at 1280 px`).toBe(1);
	}

	// The bulk panel's title sits inside its card's border at 390 px, not across it.
	await page.setViewportSize(PHONE);
	const bulk = page.locator('fieldset.bulk');
	const place = await bulk.evaluate((el) => {
		const box = el.getBoundingClientRect();
		const legend = el.querySelector('legend')!.getBoundingClientRect();
		return { legendTop: legend.top, inside: box.top + parseFloat(getComputedStyle(el).borderTopWidth) };
	});
	expect(place.legendTop, 'the bulk title below the top border').toBeGreaterThanOrEqual(place.inside);

	// Votes and history: no browser numbers or bullets.
	await page.setViewportSize(DESKTOP);
	for (const [list, id] of [
		['ol.votes', VISUAL_IDS.applicant],
		['ol.history', VISUAL_IDS.rejected]
	] as const) {
		await page.goto(`${server.url}/admin/applications/${id}`);
		const items = page.locator(`${list} > li`);
		expect(await items.count(), list).toBeGreaterThan(0);
		expect(await items.first().evaluate((li) => getComputedStyle(li).listStyleType), list).toBe('none');
	}
	await page.context().close();
});

test('minor: the reject dialog confirms in the danger colour and names the day to apply again', async ({ browser }) => {
	const page = await open(browser, admin, { viewport: DESKTOP });
	await page.goto(`${server.url}/admin/applications/${VISUAL_IDS.contested}`);
	const day = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
	const review = page.locator('form#move-review');
	await review.getByLabel('Reason').fill('Not this season.');
	await review.getByLabel(/Apply again from/).fill(day);
	await review.getByRole('button', { name: 'Reject' }).click();
	const dialog = page.getByRole('dialog');
	await expect(dialog).toBeVisible();
	const dayText = new Date(`${day}T00:00:00Z`).toLocaleDateString('en-GB', {
		day: 'numeric',
		month: 'long',
		year: 'numeric',
		timeZone: 'UTC'
	});
	await expect(dialog).toContainText(`may apply again from ${dayText}`);
	const confirm = dialog.getByRole('button', { name: /Confirm/ });
	const colours = await confirm.evaluate((el) => {
		const probe = document.createElement('span');
		probe.style.background = 'var(--danger-bg)';
		probe.style.color = 'var(--danger-text)';
		el.parentElement!.append(probe);
		const want = getComputedStyle(probe);
		const got = getComputedStyle(el);
		const result = { got: [got.backgroundColor, got.color], want: [want.backgroundColor, want.color] };
		probe.remove();
		return result;
	});
	expect(colours.got).toEqual(colours.want);
	// Cancel: nothing moves.
	await dialog.getByRole('button', { name: 'Cancel' }).click();
	await page.context().close();
});
