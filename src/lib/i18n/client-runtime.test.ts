import { afterEach, describe, expect, it, vi } from 'vitest';
import * as paraglide from '$lib/paraglide/runtime';
import * as slim from './client-runtime';

describe("the browser's slim Paraglide runtime", () => {
	afterEach(() => vi.unstubAllGlobals());

	it('has the locales of project.inlang', () => {
		expect(slim.locales).toEqual(paraglide.locales);
		expect(slim.baseLocale).toBe(paraglide.baseLocale);
	});

	it.each([
		['/', 'en'],
		['/apply', 'en'],
		['/es', 'es'],
		['/es/apply', 'es'],
		['/pt-BR/setup', 'pt-BR'],
		['/zh-Hans/', 'zh-Hans'],
		['/ar/checkin', 'ar'],
		['/ES/apply', 'en'],
		['/esp/apply', 'en'],
		['/en/apply', 'en']
	])('reads %s as %s, as the server does', (pathname, locale) => {
		vi.stubGlobal('location', { pathname });
		expect(slim.getLocale()).toBe(locale);
	});
});
