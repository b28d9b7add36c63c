// Every page of the visual suite (visual-community.ts: each role, state, and a new and a busy community)
// in each language but English, which the visual suite covers: written in the language and its
// direction, nothing scrolls sideways at 320, 390 or 1280 px (longer words, the other direction), the
// community's and applicants' own text is isolated in its direction, and axe finds nothing serious nor
// content outside landmarks. The colours are the English pages' (the
// visual suite checks them in both schemes), so axe runs in the light scheme here.
// E2E_SCREENSHOTS=1 also saves each page at the three widths, light and dark, to look at.
import { DEFAULT_BRANDING } from '../../src/lib/branding/branding';
import { axeViolations, expect, serious } from './fixtures';
import { SHOTS, openShot, test } from './visual-community';

const LOCALES = [
	['es', 'ltr'],
	['pt-BR', 'ltr'],
	['zh-Hans', 'ltr'],
	['ar', 'rtl']
] as const;
const WIDTHS = [320, 390, 1280];
/**
 * Text the community and its applicants wrote, in English on every page (tests/helpers/visual-seed.ts): a
 * question, a rubric criterion and its help, a name, a motivation, a note, a vote's comment. On an Arabic
 * page, text not set apart in its own direction shows its punctuation on the wrong side ("?What do you
 * mostly do"), so each is inside a <bdi> or an element with its own `dir` (issue 61's walk found some not).
 */
const USER_TEXTS = [
	'What do you mostly do?',
	'Can you give two hours a week?',
	'Fit with the community',
	'What the community gains.',
	'Grace Hopper',
	'Compilers, mostly.',
	'Checked the translation repository',
	'Active maintainer; clear plan.'
];
const SAVE_PICTURES = Boolean(process.env.E2E_SCREENSHOTS);

for (const [locale, dir] of LOCALES) {
	for (const shot of SHOTS.filter((s) => !s.variant)) {
		test(`${shot.name} in ${locale}: its language and direction, no sideways scroll, axe clean, all inside landmarks`, async ({
			page,
			communities
		}, testInfo) => {
			const name = `${shot.name}-${locale}`;
			await page.setViewportSize({ width: 1280, height: 800 });
			await openShot(page, communities, shot, `/${locale}`);
			await expect(page.locator('html')).toHaveAttribute('lang', locale);
			await expect(page.locator('html')).toHaveAttribute('dir', dir);
			for (const scheme of SAVE_PICTURES ? (['light', 'dark'] as const) : (['light'] as const)) {
				await page.emulateMedia({ colorScheme: scheme });
				for (const width of WIDTHS) {
					await page.setViewportSize({ width, height: width > 400 ? 800 : 844 });
					if (SAVE_PICTURES)
						await page.screenshot({ path: testInfo.outputPath(`${name}-${width}-${scheme}.png`), fullPage: true });
					const overflow = await page.evaluate(
						() => document.documentElement.scrollWidth - document.documentElement.clientWidth
					);
					expect.soft(overflow, `${name} scrolls sideways at ${width} px`).toBeLessThanOrEqual(0);
				}
			}
			const unisolated = await page.evaluate((texts) => {
				const found: string[] = [];
				const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
				for (let node = walker.nextNode(); node; node = walker.nextNode()) {
					const text = node.textContent ?? '';
					const parent = node.parentElement;
					if (!parent || parent.closest('option, script, style') || !texts.some((t) => text.includes(t))) continue;
					const own = parent.closest('bdi, [dir]');
					if (!own || own === document.documentElement) found.push(`${parent.tagName.toLowerCase()}: ${text.trim()}`);
				}
				return found;
			}, USER_TEXTS);
			expect.soft(unisolated, `${name}: user text not isolated (<bdi> or dir)`).toEqual([]);
			// The portal's own description of a community that wrote none is in the page's language, not English.
			await expect.soft(page.getByText(DEFAULT_BRANDING.description)).toHaveCount(0);
			await page.emulateMedia({ colorScheme: 'light' });
			const found = await axeViolations(page);
			expect.soft(serious(found), `axe on ${name}`).toEqual([]);
			const outside = found.filter((v) => v.id === 'region').flatMap((v) => v.nodes.map((n) => n.target.join(' ')));
			expect(outside, `${name}: content outside landmarks`).toEqual([]);
		});
	}
}
