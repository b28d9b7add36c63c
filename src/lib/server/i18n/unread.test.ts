import { afterEach, describe, expect, it } from 'vitest';
import { getLocale, locales, overwriteGetLocale, type Locale } from '$lib/paraglide/runtime';
import { m } from '$lib/paraglide/messages';
import { unreadText } from './unread';

const original = getLocale;
const inLocale = (locale: Locale) => overwriteGetLocale(() => locale);
afterEach(() => overwriteGetLocale(original));

describe('the header’s unread count in words', () => {
	it('says each count in the request’s locale, as the message does, the second time as the first', () => {
		for (const locale of locales)
			for (const count of [1, 2, 3, 5, 11, 100, 1000, 1001, 123456]) {
				inLocale(locale);
				const words = m.layout_unread({ count });
				expect(unreadText(count)).toBe(words);
				expect(unreadText(count)).toBe(words);
			}
	});

	it('keeps no locale’s words for another: the same count after a change of locale is in the new one', () => {
		inLocale('en');
		const english = unreadText(2);
		inLocale('ar');
		const arabic = unreadText(2);
		expect(arabic).not.toBe(english);
		expect(arabic).toBe(m.layout_unread({ count: 2 }, { locale: 'ar' }));
		inLocale('en');
		expect(unreadText(2)).toBe(english);
	});
});
