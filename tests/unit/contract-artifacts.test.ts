// The committed contract artifacts (tests/fixtures/contracts/*.json) are what solc would make of the
// sources as they are now: same compiler version, settings and source files (hashed), so a change to a
// fixture, an OpenZeppelin upgrade or a solc upgrade fails here until `node scripts/test-contracts.js` runs.
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONTRACTS_DIR, FIXTURES, staleness } from '../../scripts/test-contracts.js';

describe('compiled test contracts', () => {
	it('every fixture under tests/fixtures/contracts is compiled by the script', () => {
		const sources = readdirSync(CONTRACTS_DIR).filter((f) => f.endsWith('.sol'));
		expect(sources.sort()).toEqual(Object.keys(FIXTURES).sort());
	});

	it.each(Object.keys(FIXTURES))('%s: the committed artifact matches its sources', (file) => {
		expect(staleness(file)).toEqual([]);
	});
});
