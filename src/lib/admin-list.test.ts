import { describe, expect, it } from 'vitest';
import { adminListHref } from './admin-list';

describe('adminListHref', () => {
	it('links: the filters that are set, and the page past the first', () => {
		expect(adminListHref({ page: 1 })).toBe('/admin');
		expect(adminListHref({ review: 'approved', address: '0xab', page: 3 })).toBe(
			'/admin?review=approved&address=0xab&page=3'
		);
		expect(adminListHref({ review: undefined, allowlist: 'failed', page: 1 })).toBe('/admin?allowlist=failed');
	});

	it('a form posts its action with the list query, and the redirect returns to that query as posted', () => {
		const action = adminListHref({ distribution: 'sent', page: 2 }, 'transition');
		expect(action).toBe('/admin?/transition&distribution=sent&page=2');
		expect(adminListHref(new URL(action, 'http://localhost').searchParams)).toBe('/admin?distribution=sent&page=2');
		expect(adminListHref(new URLSearchParams('/transition&review=pending&page=1'))).toBe(
			'/admin?review=pending&page=1'
		);
		expect(adminListHref(new URLSearchParams('/transition'))).toBe('/admin');
	});
});
