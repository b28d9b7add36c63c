// @ts-check
// Lighthouse (issue: "Lighthouse mobile >= 95 on performance, accessibility, best practices and SEO
// for / and /setup"): the built portal on loopback, Debian's Chromium headless, Lighthouse's default
// mobile profile (Moto G Power viewport, simulated slow 4G and 4x CPU slowdown). Each page is run
// `rounds` times and the median score per category counts, since the performance score moves with a
// shared machine's load. Scores are 0–100.
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { CHROMIUM_FLAGS, SYSTEM_CHROMIUM } from '../../scripts/chromium.js';
import { startPortal } from '../harness.js';

const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'];
// The home page and /setup, and two of their prerendered translations (one right to left).
const PAGES = ['/', '/setup', '/es', '/ar/setup'];
const TARGET = 95;

/** @param {number[]} values */
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** @type {import('../harness.js').Scenario} */
export default async function lighthouseScores({ databaseUrl, engine, rounds }) {
	if (!SYSTEM_CHROMIUM) return [{ name: 'lighthouse: skipped (no Chromium at /usr/bin/chromium)' }];
	const portal = await startPortal(engine === 'postgres' ? { DATABASE_URL: databaseUrl } : {});
	const chrome = await chromeLauncher.launch({
		chromePath: SYSTEM_CHROMIUM,
		chromeFlags: ['--headless=new', ...CHROMIUM_FLAGS]
	});
	try {
		/** @type {import('../harness.js').Row[]} */
		const rows = [];
		for (const page of PAGES) {
			/** @type {Record<string, number[]>} */
			const scores = Object.fromEntries(CATEGORIES.map((c) => [c, []]));
			for (let i = 0; i < Math.max(1, rounds); i++) {
				const result = await lighthouse(`${portal.url}${page}`, {
					port: chrome.port,
					output: 'json',
					logLevel: 'error',
					onlyCategories: CATEGORIES
				});
				if (!result) throw new Error(`lighthouse gave no result for ${page}`);
				for (const c of CATEGORIES) scores[c]?.push(Math.round((result.lhr.categories[c]?.score ?? 0) * 100));
			}
			const medians = CATEGORIES.map((c) => median(scores[c] ?? []));
			rows.push({
				name: `Lighthouse mobile ${page}: ${CATEGORIES.map((c, i) => `${c} ${medians[i]}`).join(', ')}`,
				value: String(Math.min(...medians)),
				target: `every category >= ${TARGET}${medians.every((m) => m >= TARGET) ? '' : ' (MISSED)'}`
			});
		}
		return rows;
	} finally {
		chrome.kill();
		await portal.stop();
	}
}
