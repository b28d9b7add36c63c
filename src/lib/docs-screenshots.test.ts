// The README's pictures are the visual suite's current baselines (scripts/docs-screenshots.js): a
// page restyled and re-baselined without `npm run docs:screenshots` fails here.
import { describe, expect, it } from 'vitest';
import { PICTURES, stalePictures } from '../../scripts/docs-screenshots.js';

describe('docs/screenshots', () => {
	it('shows the pages as the visual suite last pictured them', () => {
		expect(Object.keys(PICTURES).length).toBeGreaterThan(0);
		expect(stalePictures()).toEqual([]);
	});
});
