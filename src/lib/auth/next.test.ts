import { describe, expect, it } from 'vitest';
import { setupHref } from '../platform/display';
import { nextPage, safeNext } from './next';
import { localizedPath, locales } from '../i18n/locales';

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

	it.each([
		['//evil.example/'],
		['/\\evil.example'],
		['/.//evil.example'],
		['/./\\evil.example'],
		['/a/..//evil.example'],
		['/%2F%2Fevil.example'],
		['/%2f/evil.example'],
		['%2F%2Fevil.example'],
		['/%5Cevil.example'],
		['/%5c%5cevil.example'],
		['/.%2F/evil.example'],
		['/\t/evil.example'],
		['/\n/evil.example'],
		['/%09/evil.example'],
		['/%0d%0a/evil.example'],
		['https://evil.example/'],
		['http:evil.example'],
		['https:/evil.example'],
		['/%E0%A4%A'],
		['//portal.example.org@evil.example/']
	])('falls back to the default page for %j', (value) => {
		expect(safeNext(value, origin)).toBeNull();
	});

	it('builds the sign-in link that comes back', () => {
		expect(setupHref('/apply')).toBe('/setup?next=%2Fapply');
		expect(setupHref('/')).toBe('/setup');
		expect(setupHref('/setup')).toBe('/setup');
		expect(safeNext(new URL(setupHref('/checkin'), origin).searchParams.get('next'), origin)).toBe('/checkin');
	});

	it('refuses a path that leaves the site once its locale prefix is taken off', () => {
		for (const value of [
			'/es//evil.example',
			'/ar//evil.example/x',
			'/es/%2F%2Fevil.example',
			'/es/setup',
			'/zh-Hans/setup?next=/apply'
		])
			expect(safeNext(value, origin), value).toBeNull();
		expect(safeNext('/es/apply', origin)).toBe('/es/apply');
	});

	it('sends the member back in the language of the /setup page they signed in on', () => {
		expect(nextPage('/apply', origin, 'es')).toBe('/es/apply');
		expect(nextPage('/es/apply', origin, 'es')).toBe('/es/apply');
		expect(nextPage('/es/checkin?x=1#recent', origin, 'ar')).toBe('/ar/checkin?x=1#recent');
		expect(nextPage('/es/apply', origin, 'en')).toBe('/apply');
		expect(nextPage('/es', origin, 'pt-BR')).toBe('/pt-BR');
		for (const locale of locales) expect(nextPage('/es//evil.example', origin, locale)).toBeNull();
	});
});

describe('a page path in a locale', () => {
	it('is always a path of this site, whatever the request path was', () => {
		for (const locale of locales)
			for (const path of [
				'//evil.example',
				'/es//evil.example',
				'/es/\\evil.example',
				'/\\evil.example',
				'/ar///evil.example?x#y'
			]) {
				const href = localizedPath(path, locale);
				expect(href, `${path} in ${locale}`).toMatch(/^\/(?![/\\])/);
				expect(new URL(href, origin).origin).toBe(origin);
			}
		expect(localizedPath('/es//evil.example', 'en')).toBe('/evil.example');
		expect(localizedPath('/es/apply?x=1', 'ar')).toBe('/ar/apply?x=1');
	});
});
