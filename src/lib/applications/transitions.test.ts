import { describe, expect, it } from 'vitest';
import { PERMITTED, STATES } from '../../../tests/helpers/transition-table';
import { permittedMoves } from './transitions';

describe('the permitted-moves table offered to admins', () => {
	it('offers exactly the admin rows of the table for every combination of states', () => {
		for (const review of STATES.review!)
			for (const allowlist of STATES.allowlist!)
				for (const distribution of STATES.distribution!) {
					const app = { review, allowlist, distribution } as Parameters<typeof permittedMoves>[0];
					const offered = permittedMoves(app)
						.map((m) => `${m.field}:${m.from}>${m.to}`)
						.sort();
					const expected = PERMITTED.filter(
						([field, from]) => app[field] === from && (field === 'review' || review === 'approved')
					)
						.map(([field, from, to]) => `${field}:${from}>${to}`)
						.sort();
					expect(offered, `${review}/${allowlist}/${distribution}`).toEqual(expected);
				}
	});
});
