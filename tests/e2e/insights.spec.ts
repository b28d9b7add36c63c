import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { RunningServer } from '../helpers/server';
import { signIn } from '../helpers/siwe';
import { admin, expect, screenshots, startPortal, test } from './fixtures';

// /admin/insights in Chromium: reached from the admin header, axe-clean in light and dark at phone
// and desktop width, and its chart marks and labels keep their contrast against the page in dark mode.
let server: RunningServer;

test.beforeAll(async () => {
	server = await startPortal({ ADMIN_ADDRESSES: admin.address });
	for (let i = 0; i < 4; i++) {
		const member = privateKeyToAccount(generatePrivateKey());
		const cookie = await signIn(server.url, member);
		const post = (path: string, fields: Record<string, string>) =>
			fetch(`${server.url}${path}`, {
				method: 'POST',
				body: new URLSearchParams(fields),
				headers: { cookie, origin: server.url },
				redirect: 'manual'
			});
		await post('/apply', { displayName: `Insightful ${i}`, motivation: 'I would like to help with documentation.' });
		for (let n = 0; n <= i; n++) await post('/checkin', { note: `day ${n}` });
	}
});
test.afterAll(async () => {
	await server?.stop();
});

/** WCAG relative luminance of a computed `rgb(r, g, b)` colour. */
function luminance(rgb: string): number {
	const [r, g, b] = (rgb.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((c) => {
		const v = Number(c) / 255;
		return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
	}) as [number, number, number];
	return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
const contrast = (a: string, b: string) => {
	const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
	return (hi + 0.05) / (lo + 0.05);
};

test('an admin opens Insights from the header; the charts are axe-clean and readable in light and dark', async ({
	browser
}, testInfo) => {
	const cookie = await signIn(server.url, admin);
	const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
	const [name, value] = cookie.split(/=(.*)/s) as [string, string];
	await context.addCookies([{ name, value, url: server.url }]);
	const page = await context.newPage();
	await page.goto(`${server.url}/admin`);
	await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Insights' }).click();
	await expect(page).toHaveURL(`${server.url}/admin/insights`);
	await expect(page.getByRole('heading', { level: 1, name: 'Insights' })).toBeVisible();
	await expect(page.getByRole('img', { name: /Applications per week/ })).toBeVisible();
	await expect(page.getByRole('img', { name: /Check-ins per day/ })).toBeVisible();

	// The numbers behind a chart open from its summary.
	await page.getByText('Numbers of “From application to token”').click();
	await expect(page.getByRole('row', { name: /Submitted 4 100%/ })).toBeVisible();

	await screenshots(page, testInfo, 'admin-insights');

	for (const scheme of ['light', 'dark'] as const) {
		await page.emulateMedia({ colorScheme: scheme });
		const colours = await page.evaluate(() => {
			const fill = (selector: string) => getComputedStyle(document.querySelector(selector)!).fill;
			return {
				page: getComputedStyle(document.body).backgroundColor,
				axisText: fill('#applications-per-week-caption ~ svg text'),
				bar: fill('#check-ins-per-day-caption ~ svg rect'),
				funnelText: fill('#funnel-caption ~ svg text.name')
			};
		});
		expect(contrast(colours.axisText, colours.page), `axis labels (${scheme})`).toBeGreaterThanOrEqual(4.5);
		expect(contrast(colours.funnelText, colours.page), `funnel labels (${scheme})`).toBeGreaterThanOrEqual(4.5);
		expect(contrast(colours.bar, colours.page), `bars (${scheme})`).toBeGreaterThanOrEqual(3);
	}
	await context.close();
});

test('on a phone 360 px wide, every chart letter is at least 11 CSS pixels, inside its chart, and no two x labels touch', async ({
	browser
}, testInfo) => {
	const cookie = await signIn(server.url, admin);
	const context = await browser.newContext({ viewport: { width: 360, height: 740 } });
	const [name, value] = cookie.split(/=(.*)/s) as [string, string];
	await context.addCookies([{ name, value, url: server.url }]);
	const page = await context.newPage();
	await page.goto(`${server.url}/admin/insights`);
	await expect(page.getByRole('img', { name: /Applications per week/ })).toBeVisible();
	const charts = await page.evaluate(() =>
		[...document.querySelectorAll<SVGSVGElement>('svg[role="img"]')].map((svg) => {
			const box = svg.getBoundingClientRect();
			const scale = box.width / svg.viewBox.baseVal.width;
			const texts = [...svg.querySelectorAll('text')].filter((t) => getComputedStyle(t).display !== 'none');
			const rect = (t: Element) => t.getBoundingClientRect();
			const xLabels = [...svg.querySelectorAll('.x-labels text')]
				.filter((t) => getComputedStyle(t).display !== 'none')
				.map(rect)
				.sort((a, b) => a.left - b.left);
			return {
				id: svg.getAttribute('aria-labelledby'),
				texts: texts.length,
				smallest: Math.min(...texts.map((t) => parseFloat(getComputedStyle(t).fontSize) * scale)),
				outside: texts
					.filter((t) => {
						const r = rect(t);
						return (
							r.left < box.left - 0.5 ||
							r.right > box.right + 0.5 ||
							r.top < box.top - 0.5 ||
							r.bottom > box.bottom + 0.5
						);
					})
					.map((t) => t.textContent),
				touching: xLabels.slice(1).filter((r, i) => r.left < xLabels[i]!.right + 4).length
			};
		})
	);
	await page.screenshot({ path: testInfo.outputPath('admin-insights-360.png'), fullPage: true });
	expect(charts).toHaveLength(4);
	for (const chart of charts) {
		expect(chart.texts, `${chart.id} has lettering`).toBeGreaterThan(2);
		expect(chart.smallest, `${chart.id}: smallest letter in CSS pixels`).toBeGreaterThanOrEqual(11);
		expect(chart.outside, `${chart.id}: letters cut off at the edge`).toEqual([]);
		expect(chart.touching, `${chart.id}: x labels that touch`).toBe(0);
	}
	await context.close();
});
