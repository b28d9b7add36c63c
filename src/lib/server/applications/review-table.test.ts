import { describe, expect, it } from 'vitest';
import { cursorText, parseTableQuery } from './review-table';

const query = (search: string) => parseTableQuery(new URLSearchParams(search));
const id = '0b6f3c1e-8a1d-4c5e-9f0a-2b3c4d5e6f70';

describe('the /admin query string', () => {
	it('reads filters, a search, the order and a cursor; unknown values fall back to their defaults', () => {
		expect(
			query(
				`review=approved&allowlist=failed&distribution=sent&q=%20Ada%20&sort=newest&after=2026-11-22T03:00:00.123456Z_${id}`
			)
		).toEqual({
			review: 'approved',
			allowlist: 'failed',
			distribution: 'sent',
			q: 'Ada',
			sort: 'newest',
			after: { at: '2026-11-22T03:00:00.123456Z', id },
			before: undefined,
			shortSearch: false
		});
		expect(query('review=bogus&sort=sideways&after=1;drop&before=nope')).toEqual({
			review: undefined,
			allowlist: undefined,
			distribution: undefined,
			q: undefined,
			sort: 'oldest',
			after: undefined,
			before: undefined,
			shortSearch: false
		});
		expect(query('before=end').before).toBe('end');
		expect(cursorText(query(`before=2026-11-22T03:00:00Z_${id}`).before)).toBe(`2026-11-22T03:00:00Z_${id}`);
	});

	it('a search shorter than 3 characters is ignored and says so; a long one is refused', () => {
		expect(query('q=ab')).toMatchObject({ q: undefined, shortSearch: true });
		expect(query(`q=${'x'.repeat(101)}`).q).toBeUndefined();
	});
});
