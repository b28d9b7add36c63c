// The visual regression suite (docs/design-system.md "Checks"): every page, role and state that
// matters, at 390 and 1280 px, light and dark, compared with the baselines in visual.spec.ts-snapshots/;
// no page scrolls sideways at 320 or 390 px; axe finds nothing serious in either scheme.
// Update the baselines after a deliberate change: npx playwright test visual --update-snapshots
// The README's pictures come from here too, with their real dates: npm run docs:screenshots.
import type { Page } from '@playwright/test';
import { COLOUR_RULES, axeViolations, expect, serious } from './fixtures';
import { SHOTS, openShot, test } from './visual-community';

test.use({ locale: 'en-US', timezoneId: 'UTC' });

/** With DOCS_SCREENSHOTS set (npm run docs:screenshots): docs/screenshots/<file> from these shots, desktop and light, dates as they are. */
const DOCS_PICTURES: Record<string, string> = {
	'apply-pending': 'applicant.png',
	'admin-table': 'review-table.png',
	'admin-insights': 'insights.png',
	'admin-form': 'form-builder.png'
};

/**
 * Dates come from the database clock: every <time> and every date-looking text (chart axes, tables)
 * becomes one fixed date, so the pictures do not change from day to day.
 */
async function freezeDates(page: Page): Promise<void> {
	await page.evaluate(() => {
		const month = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\\.?';
		const dated = new RegExp(`\\b(?:\\d{1,2} ${month}(?: \\d{4})?|${month} \\d{1,2}(?:, \\d{4})?)\\b`, 'g');
		for (const time of document.querySelectorAll('time')) time.textContent = 'Jan 1, 2026';
		const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
		for (let node = walker.nextNode(); node; node = walker.nextNode())
			if (dated.test(node.nodeValue ?? '')) node.nodeValue = node.nodeValue!.replace(dated, 'Jan 1');
	});
}

for (const shot of SHOTS) {
	test(`${shot.name}: the same picture at 390 and 1280, light and dark; no sideways scroll; axe clean`, async ({
		page,
		communities
	}) => {
		// Four full-page pictures and two axe runs: more than the default minute on a loaded machine.
		test.setTimeout(180_000);
		await page.setViewportSize({ width: 1280, height: 800 });
		await openShot(page, communities, shot);
		const docsPicture = process.env.DOCS_SCREENSHOTS ? DOCS_PICTURES[shot.name] : undefined;
		if (docsPicture) {
			await page.emulateMedia({ colorScheme: 'light' });
			await page.screenshot({
				path: `docs/screenshots/${docsPicture}`,
				fullPage: true,
				animations: 'disabled',
				caret: 'hide'
			});
		}

		for (const width of [320, 390]) {
			await page.setViewportSize({ width, height: 844 });
			const overflow = await page.evaluate(
				() => document.documentElement.scrollWidth - document.documentElement.clientWidth
			);
			// Soft: a page that scrolls sideways still gets its pictures taken (and the test still fails).
			expect.soft(overflow, `${shot.name} scrolls sideways at ${width} px`).toBeLessThanOrEqual(0);
		}
		for (const scheme of shot.variant ? (['light'] as const) : (['light', 'dark'] as const)) {
			await page.emulateMedia({ colorScheme: scheme });
			// The dark scheme changes only colours (src/app.css): the colour rules are what it can break.
			const found = await axeViolations(page, scheme === 'dark' ? { rules: COLOUR_RULES } : {});
			expect.soft(serious(found), `axe on ${shot.name} (${scheme})`).toEqual([]);
			await freezeDates(page);
			for (const [label, size] of [
				['phone', { width: 390, height: 844 }],
				['desktop', { width: 1280, height: 800 }]
			] as const) {
				await page.setViewportSize(size);
				await expect(page).toHaveScreenshot(`${shot.name}-${label}-${scheme}.png`, {
					fullPage: true,
					animations: 'disabled',
					caret: 'hide',
					// Debian's DejaVu fonts render the same run to run; a little room for antialiasing.
					maxDiffPixelRatio: 0.01
				});
			}
		}
	});
}
