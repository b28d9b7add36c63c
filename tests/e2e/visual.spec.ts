// The visual regression suite (docs/design-system.md "Checks"): every page, role and state that
// matters, at 390 and 1280 px, light and dark, compared with the baselines in visual.spec.ts-snapshots/;
// no page scrolls sideways at 320 or 390 px; axe finds nothing serious in either scheme.
// Update the baselines after a deliberate change: npx playwright test visual --update-snapshots
// The README's pictures come from here too, with their real dates: npm run docs:screenshots.
import type { Page } from '@playwright/test';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { RunningServer } from '../helpers/server';
import { signIn } from '../helpers/siwe';
import { VISUAL_IDS, visualDatabases, type VisualDatabase } from '../helpers/visual-seed';
import { COLOUR_RULES, admin, axeViolations, expect, member, other, serious, startPortal, test } from './fixtures';

test.use({ locale: 'en-US', timezoneId: 'UTC' });

const accounts = {
	applicant: member,
	admin,
	reviewer: other,
	newcomer: privateKeyToAccount(`0x${'11'.repeat(32)}`),
	rejected: privateKeyToAccount(`0x${'22'.repeat(32)}`)
} satisfies Record<string, PrivateKeyAccount>;
type Role = keyof typeof accounts;

/** With DOCS_SCREENSHOTS set (npm run docs:screenshots): docs/screenshots/<file> from these shots, desktop and light, dates as they are. */
const DOCS_PICTURES: Record<string, string> = {
	'apply-pending': 'applicant.png',
	'admin-table': 'review-table.png',
	'admin-insights': 'insights.png',
	'admin-form': 'form-builder.png'
};
type Community = 'seeded' | 'new';

interface Shot {
	name: string;
	community: Community;
	as: Role | null;
	path: string;
	/** What brings the page into its state after loading (a refused form, say). */
	act?: (page: Page) => Promise<void>;
	/** A variant of a page shot in full elsewhere: light only, to keep the suite within its time. */
	variant?: true;
}

const SHOTS: Shot[] = [
	{ name: 'home-visitor', community: 'seeded', as: null, path: '/' },
	{ name: 'setup-visitor', community: 'seeded', as: null, path: '/setup' },
	{ name: 'not-found', community: 'seeded', as: null, path: '/no/such/page' },
	{ name: 'apply-new', community: 'seeded', as: 'newcomer', path: '/apply' },
	{
		name: 'apply-refused',
		variant: true,
		community: 'seeded',
		as: 'newcomer',
		path: '/apply',
		async act(page) {
			// Past the browser's own checks, so the server's refusal is what shows.
			await page
				.locator('form')
				.filter({ has: page.getByRole('button', { name: /submit/i }) })
				.evaluate((f) => {
					(f as HTMLFormElement).noValidate = true;
				});
			await page.getByRole('button', { name: /submit/i }).click();
			await expect(page.getByRole('alert').first()).toBeVisible();
		}
	},
	{ name: 'apply-pending', community: 'seeded', as: 'applicant', path: '/apply' },
	{ name: 'apply-rejected', variant: true, community: 'seeded', as: 'rejected', path: '/apply' },
	{ name: 'checkin', community: 'seeded', as: 'applicant', path: '/checkin' },
	{ name: 'admin-table', community: 'seeded', as: 'admin', path: '/admin' },
	{ name: 'admin-table-empty', variant: true, community: 'new', as: 'admin', path: '/admin' },
	{ name: 'admin-application', community: 'seeded', as: 'admin', path: `/admin/applications/${VISUAL_IDS.applicant}` },
	{
		name: 'admin-application-rejected',
		variant: true,
		community: 'seeded',
		as: 'admin',
		path: `/admin/applications/${VISUAL_IDS.rejected}`
	},
	{ name: 'admin-form', community: 'seeded', as: 'admin', path: '/admin/form' },
	{ name: 'admin-form-empty', variant: true, community: 'new', as: 'admin', path: '/admin/form' },
	{ name: 'admin-insights', community: 'seeded', as: 'admin', path: '/admin/insights' },
	{ name: 'admin-insights-empty', variant: true, community: 'new', as: 'admin', path: '/admin/insights' },
	{ name: 'admin-webhooks', community: 'seeded', as: 'admin', path: '/admin/webhooks' },
	{ name: 'admin-webhooks-empty', variant: true, community: 'new', as: 'admin', path: '/admin/webhooks' },
	{ name: 'admin-batches', community: 'seeded', as: 'admin', path: '/admin/batches' },
	{ name: 'review-queue', community: 'seeded', as: 'reviewer', path: '/review' },
	{ name: 'review-queue-empty', variant: true, community: 'new', as: 'admin', path: '/review' },
	{ name: 'review-application', community: 'seeded', as: 'reviewer', path: `/review/${VISUAL_IDS.contested}` }
];

const servers = {} as Record<Community, { server: RunningServer; db: VisualDatabase; cookies: Map<Role, string> }>;

test.beforeAll(async () => {
	// A PGlite database migrated, copied and seeded, and two servers started, on a busy machine.
	test.setTimeout(300_000);
	const cast = {
		applicant: accounts.applicant.address.toLowerCase(),
		rejected: accounts.rejected.address.toLowerCase(),
		admin: accounts.admin.address.toLowerCase(),
		reviewer: accounts.reviewer.address.toLowerCase()
	};
	const databases = await visualDatabases(cast);
	await Promise.all(
		(['seeded', 'new'] as const).map(async (community) => {
			const db = databases[community];
			const server = await startPortal({
				...db.env,
				ADMIN_ADDRESSES: admin.address,
				REVIEWER_ADDRESSES: other.address,
				REVIEW_QUORUM: '2'
			});
			servers[community] = { server, db, cookies: new Map() };
		})
	);
});
test.afterAll(async () => {
	for (const { server, db } of Object.values(servers)) {
		await server.stop();
		db.drop();
	}
});

/** The signed-in session of `role` on `community`'s server, signed in once. */
async function cookieOf(community: Community, role: Role): Promise<string> {
	const { server, cookies } = servers[community];
	if (!cookies.has(role)) cookies.set(role, await signIn(server.url, accounts[role]));
	return cookies.get(role)!;
}

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
		page
	}) => {
		// Four full-page pictures and two axe runs: more than the default minute on a loaded machine.
		test.setTimeout(180_000);
		const { server } = servers[shot.community];
		if (shot.as) {
			const [name, value] = (await cookieOf(shot.community, shot.as)).split(/=(.*)/s) as [string, string];
			await page.context().addCookies([{ name, value, url: server.url }]);
		}
		await page.setViewportSize({ width: 1280, height: 800 });
		await page.goto(`${server.url}${shot.path}`);
		await page.waitForLoadState('networkidle');
		await shot.act?.(page);
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
