import { describe, expect, it } from 'vitest';
import { parseAdminQuery } from './admin-list';

const query = (search: string) => parseAdminQuery(new URLSearchParams(search));

describe('the /admin query string', () => {
	it('reads filters, an address search and a page; unknown values fall back to any / page 1', () => {
		expect(query('review=approved&allowlist=failed&distribution=sent&address=0xABC&page=3')).toEqual({
			review: 'approved',
			allowlist: 'failed',
			distribution: 'sent',
			address: '0xabc',
			page: 3,
			invalidAddress: false
		});
		expect(query('review=bogus&page=-2&address=zz%27;drop')).toEqual({
			review: undefined,
			allowlist: undefined,
			distribution: undefined,
			address: undefined,
			page: 1,
			invalidAddress: true
		});
		expect(query('page=1.5').page).toBe(1);
	});
});
