// @ts-check
// `npm run docs:screenshots`: the README's pictures, copied from the visual suite's baselines
// (tests/e2e/visual.spec.ts-snapshots), so they show the pages as they are. After
// `npx playwright test visual --update-snapshots`, run it again; `--check` only says which differ
// (src/lib/docs-screenshots.test.ts runs the same comparison in `npm test`).
import { copyFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** docs/screenshots/<name>.png ← the visual suite's <shot>-desktop-light baseline. @type {Record<string, string>} */
export const PICTURES = {
	'applicant.png': 'apply-pending',
	'review-table.png': 'admin-table',
	'form-builder.png': 'admin-form'
};

/** @param {string} shot */
export const baselineOf = (shot) =>
	path.join(ROOT, 'tests/e2e/visual.spec.ts-snapshots', `${shot}-desktop-light-linux.png`);
/** @param {string} name */
export const pictureOf = (name) => path.join(ROOT, 'docs/screenshots', name);

/** The pictures that differ from their baseline. */
export function stalePictures() {
	return Object.entries(PICTURES)
		.filter(([name, shot]) => {
			try {
				return !readFileSync(pictureOf(name)).equals(readFileSync(baselineOf(shot)));
			} catch {
				return true;
			}
		})
		.map(([name]) => name);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
	const stale = stalePictures();
	if (process.argv.includes('--check')) {
		if (stale.length) console.error(`Stale in docs/screenshots: ${stale.join(', ')} (npm run docs:screenshots)`);
		process.exit(stale.length ? 1 : 0);
	}
	for (const name of stale) copyFileSync(baselineOf(/** @type {string} */ (PICTURES[name])), pictureOf(name));
	console.log(stale.length ? `Copied ${stale.join(', ')}` : 'docs/screenshots is current');
}
