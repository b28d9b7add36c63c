import { describe, expect, it } from 'vitest';
import { setupHref } from '../platform/display';
import { safeNext } from './next';

const origin = 'https://portal.example.org';

describe('the page to return to after sign-in', () => {
	it('keeps a path of this site, with its query and fragment', () => {
		expect(safeNext('/apply', origin)).toBe('/apply');
		expect(safeNext('/checkin?x=1#recent', origin)).toBe('/checkin?x=1#recent');
		expect(safeNext('/admin/../apply', origin)).toBe('/apply');
	});

	it('refuses anything that could leave the site (no open redirect) and /setup itself', () => {
		for (const value of [
			null,
			'',
			'apply',
			'https://evil.example/',
			'//evil.example/',
			'/\\evil.example',
			'\\\\evil.example',
			'/\t/evil.example',
			'/%0a/evil',
			'javascript:alert(1)',
			'/setup',
			'/setup?next=/apply'
		]) {
			const kept = safeNext(value, origin);
			if (kept !== null) expect(new URL(kept, origin).origin).toBe(origin);
			if (value !== '/%0a/evil') expect(kept).toBeNull();
		}
	});

	it('builds the sign-in link that comes back', () => {
		expect(setupHref('/apply')).toBe('/setup?next=%2Fapply');
		expect(setupHref('/')).toBe('/setup');
		expect(setupHref('/setup')).toBe('/setup');
		expect(safeNext(new URL(setupHref('/checkin'), origin).searchParams.get('next'), origin)).toBe('/checkin');
	});
});
