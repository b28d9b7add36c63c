import { afterEach, describe, expect, it } from 'vitest';
import { getLocale, locales, overwriteGetLocale, type Locale } from '$lib/paraglide/runtime';
import { formatTime } from './format';

const original = getLocale;
const inLocale = (locale: Locale) => overwriteGetLocale(() => locale);
afterEach(() => overwriteGetLocale(original));

/** What formatTime writes, from Intl itself: the locale's medium date and short time, in UTC. */
const expected = (locale: Locale, value: Date | string) =>
	`${new Intl.DateTimeFormat(locale === 'en' ? 'en-GB' : locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(new Date(value))} UTC`;

describe('a <Time>’s words (formatTime), each minute formatted once per locale', () => {
	it('writes every moment as Intl does, in each locale, the second time as the first', () => {
		const moments = [
			'2026-12-06T09:06:14.960Z',
			'2026-12-06T09:06:59.999Z',
			'2026-12-06T09:07:00.000Z',
			'1969-07-20T20:17:40Z'
		];
		for (const locale of locales)
			for (const moment of moments) {
				inLocale(locale);
				expect(formatTime(moment)).toBe(expected(locale, moment));
				expect(formatTime(new Date(moment))).toBe(expected(locale, moment));
			}
		inLocale('en');
		expect(formatTime('2026-12-06T09:06:14.960Z')).toBe('6 Dec 2026, 09:06 UTC');
		expect(formatTime('2026-12-06T09:07:00.000Z')).toBe('6 Dec 2026, 09:07 UTC');
	});

	it('keeps no locale’s words for another, and refuses a moment that is none as Intl does', () => {
		inLocale('en');
		const english = formatTime('2026-12-06T09:06:00Z');
		inLocale('ar');
		expect(formatTime('2026-12-06T09:06:00Z')).toBe(expected('ar', '2026-12-06T09:06:00Z'));
		expect(formatTime('2026-12-06T09:06:00Z')).not.toBe(english);
		expect(() => formatTime('not a date')).toThrow(RangeError);
	});

	it('formats a new minute after thousands of others (the memo is bounded, not stale)', () => {
		inLocale('en');
		const start = Date.parse('2020-01-01T00:00:00Z');
		for (let i = 0; i < 10_000; i++) {
			const moment = new Date(start + i * 60_000);
			if (i % 997 === 0) expect(formatTime(moment)).toBe(expected('en', moment));
			else formatTime(moment);
		}
		expect(formatTime(new Date(start))).toBe('1 Jan 2020, 00:00 UTC');
	});
});
