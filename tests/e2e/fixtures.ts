import AxeBuilder from '@axe-core/playwright';
import {
	test as base,
	expect,
	type Browser,
	type BrowserContext,
	type Locator,
	type Page,
	type TestInfo
} from '@playwright/test';
import type { PrivateKeyAccount } from 'viem/accounts';
import { createServerDatabase } from '../helpers/postgres.js';
import { startServer, type RunningServer } from '../helpers/server';
import { signIn, testAccount } from '../helpers/siwe';

export const TOKEN = {
	PUBLIC_TOKEN_ADDRESS: '0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174',
	PUBLIC_TOKEN_SYMBOL: 'MEMBR',
	PUBLIC_TOKEN_DECIMALS: '18',
	PUBLIC_TOKEN_IMAGE: 'https://example.org/membr.png'
};

export const member = testAccount('member');
export const admin = testAccount('admin');
export const other = testAccount('other');

export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 800 };

/** E2E_SCREENSHOTS=1: `screenshots()` also saves its pictures, to look at (they are never compared). */
const SAVE_PICTURES = Boolean(process.env.E2E_SCREENSHOTS);

/** The rules whose findings change with the colour scheme: the dark scheme only swaps colour tokens (src/app.css). */
export const COLOUR_RULES = ['color-contrast', 'link-in-text-block'];
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'best-practice'];

/**
 * axe-core's violations on the page as it is now: the WCAG 2 A/AA and best-practice rules, or only `rules`.
 * Legacy mode runs axe in the page itself; the default also opens a blank page per run to merge the results
 * of cross-origin frames, which the portal's pages do not have, and took twice the time (bench/README.md, CI time).
 */
export async function axeViolations(page: Page, { rules }: { rules?: string[] } = {}) {
	// Only the violations are read: axe then keeps one node per passed or inapplicable rule, not every node it
	// checked, which the page serialised and the test process parsed on each run (bench/README.md, CI time).
	const builder = new AxeBuilder({ page }).setLegacyMode(true).options({ resultTypes: ['violations'] });
	const { violations } = await (rules ? builder.withRules(rules) : builder.withTags(AXE_TAGS)).analyze();
	return violations;
}
/** The serious and critical findings, as `rule: selectors` lines. */
export function serious(violations: Awaited<ReturnType<typeof axeViolations>>): string[] {
	return violations
		.filter((v) => v.impact === 'serious' || v.impact === 'critical')
		.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/**
 * The page at phone and desktop width, light and dark: nothing scrolls sideways at either width, and axe
 * finds no serious or critical violation (WCAG 2 A/AA rules) in either scheme. The dark scheme changes
 * only colours (src/app.css), so the widths are measured once and the dark run checks the colour rules.
 * With E2E_SCREENSHOTS=1 it also saves a full-page picture of each under test-results/<test>/, for a
 * person to look at; otherwise none (pictures are compared only by the visual suite, visual.spec.ts).
 */
export async function screenshots(
	page: Page,
	testInfo: TestInfo,
	name: string,
	{ axe = true }: { axe?: boolean } = {}
): Promise<void> {
	const before = page.viewportSize();
	for (const scheme of ['light', 'dark'] as const) {
		await page.emulateMedia({ colorScheme: scheme });
		for (const [label, size] of [
			['phone', PHONE],
			['desktop', DESKTOP]
		] as const) {
			if (scheme === 'dark' && !SAVE_PICTURES) break;
			await page.setViewportSize(size);
			if (SAVE_PICTURES)
				await page.screenshot({ path: testInfo.outputPath(`${name}-${label}-${scheme}.png`), fullPage: true });
			// Nothing may overflow sideways at either width.
			const overflow = await page.evaluate(
				() => document.documentElement.scrollWidth - document.documentElement.clientWidth
			);
			expect(overflow, `${name} scrolls sideways at ${label} width`).toBeLessThanOrEqual(0);
		}
		if (!axe) continue;
		const found = await axeViolations(page, scheme === 'dark' ? { rules: COLOUR_RULES } : {});
		expect(serious(found), `axe on ${name} (${scheme})`).toEqual([]);
	}
	await page.emulateMedia({ colorScheme: null });
	if (before) await page.setViewportSize(before);
}

/**
 * A page in a browser context of its own, signed in as `account` on `server` through the real sign-in
 * endpoints (its session cookie set): 1280×800 unless told; `scripts: 'off'` disables JavaScript,
 * `'blocked'` lets the page load but aborts the app's scripts (a page as it is before hydration).
 */
export async function pageAs(
	browser: Browser,
	server: Pick<RunningServer, 'url'>,
	account: PrivateKeyAccount,
	{
		viewport = DESKTOP,
		scripts = 'on',
		locale
	}: {
		viewport?: { width: number; height: number };
		scripts?: 'on' | 'off' | 'blocked';
		/** The browser's language (Accept-Language); a page in another language offers this one. */
		locale?: string;
	} = {}
): Promise<Page> {
	const cookie = await signIn(server.url, account);
	const context = await browser.newContext({ viewport, javaScriptEnabled: scripts !== 'off', locale });
	const [name, value] = cookie.split(/=(.*)/s) as [string, string];
	await context.addCookies([{ name, value, url: server.url }]);
	if (scripts === 'blocked') await context.route(/\/_app\/.*\.js$/, (route) => route.abort());
	return context.newPage();
}

/**
 * Presses Tab (keyboard only) until `target` (a locator, or a CSS selector the focused element
 * matches) has focus; the number of presses. Fails past `max`.
 */
export async function tabTo(page: Page, target: Locator | string, max = 60): Promise<number> {
	const focused = () =>
		typeof target === 'string'
			? page.evaluate((s) => document.activeElement?.matches(s) ?? false, target)
			: target.evaluate((el) => el === document.activeElement);
	for (let presses = 0; presses <= max; presses++) {
		if (presses > 0) await page.keyboard.press('Tab');
		if (await focused()) return presses;
	}
	throw new Error(`no focus on ${target.toString()} after ${max} Tab presses`);
}

/** The signed-in address as the server sees it (GET /api/auth/me with the page's cookies). */
export async function serverSession(page: Page): Promise<{ address: string | null; isAdmin: boolean }> {
	return page.evaluate(
		async () =>
			(await (await fetch('/api/auth/me', { cache: 'no-store' })).json()) as {
				address: string | null;
				isAdmin: boolean;
			}
	);
}

export function header(page: Page) {
	return page.getByRole('banner');
}

/**
 * The built server for one spec file: on a fresh migrated Postgres database when TEST_DATABASE_URL
 * is set, else on PGlite in memory; a spec that brings its own seeded folder (PGLITE_DATA_DIR, the
 * visual suite) runs on that folder either way.
 */
export async function startPortal(env: Record<string, string> = {}): Promise<RunningServer> {
	const database =
		process.env.TEST_DATABASE_URL && !env.PGLITE_DATA_DIR
			? await createServerDatabase(process.env.TEST_DATABASE_URL, { prefix: 'portal_e2e' })
			: null;
	const server = await startServer({ env: { ...env, ...(database ? { DATABASE_URL: database.url } : {}) } });
	if (server.process.exitCode !== null) {
		await database?.drop();
		throw new Error(`the server did not start:\n${server.output()}`);
	}
	return {
		...server,
		async stop() {
			await server.stop();
			await database?.drop();
		}
	};
}

/**
 * Every spec's `test`: the pages run with the portal's Content-Security-Policy enforced, and a test
 * fails on any violation its pages report (docs/security.md), in the default context and in every
 * context the test opens with browser.newContext(); those contexts are closed when the test ends.
 */
export const test = base.extend<{ failOnCspViolations: void }>({
	failOnCspViolations: [
		async ({ browser, context }, use) => {
			const violations: string[] = [];
			const watch = async (watched: BrowserContext) => {
				watched.on('console', (message) => {
					const text = message.text();
					if (/Content Security Policy|CSP violation/i.test(text)) violations.push(text);
				});
				await watched.addInitScript(() =>
					document.addEventListener('securitypolicyviolation', (e) =>
						console.error(
							`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || 'inline'} on ${e.documentURI}`
						)
					)
				);
			};
			await watch(context);
			const newContext = browser.newContext.bind(browser);
			const opened: BrowserContext[] = [];
			const patched: Browser['newContext'] = async (options) => {
				const made = await newContext(options);
				opened.push(made);
				await watch(made);
				return made;
			};
			browser.newContext = patched;
			try {
				await use();
			} finally {
				browser.newContext = newContext;
				// The worker's browser outlives the test: a context left open kept its pages running, and
				// Playwright's tracing restarted on every open context at each later test, so each test grew
				// slower than the one before (bench/README.md, CI time).
				await Promise.all(opened.map((made) => made.close().catch(() => undefined)));
			}
			expect(violations, 'Content-Security-Policy violations').toEqual([]);
		},
		{ auto: true }
	]
});
export { expect };
