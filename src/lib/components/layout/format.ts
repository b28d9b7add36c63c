import { common_just_now } from '$lib/paraglide/messages/common_just_now.js';
import { common_some_time_ago } from '$lib/paraglide/messages/common_some_time_ago.js';
import { baseLocale, getLocale } from '$lib/paraglide/runtime';

/**
 * One Intl formatter per key, made on first use: constructing an Intl.DateTimeFormat costs far more than
 * formatting with one, and a page with a dozen <Time>s made a dozen (bench/README.md "Figures behind the code").
 * The same holds for every Intl formatter (NumberFormat: about 15 µs to make, under half a µs to format, on this machine).
 */
export function formatterCache<F>(make: (key: string) => F): (key: string) => F {
	const made = new Map<string, F>();
	return (key) => {
		let formatter = made.get(key);
		if (!formatter) made.set(key, (formatter = make(key)));
		return formatter;
	};
}

const utcDateTime = formatterCache(
	(locale) =>
		new Intl.DateTimeFormat(locale === baseLocale ? 'en-GB' : locale, {
			dateStyle: 'medium',
			timeStyle: 'short',
			timeZone: 'UTC'
		})
);

/** How many formatted minutes are kept; past that the memo starts again (a few hundred kB at most). */
const MINUTES_KEPT = 4096;
const minutesSaid = new Map<string, string>();

// One fixed format and time zone per locale, so the server's HTML and the browser's first render agree
// (English keeps its day-month-year order). The format names the minute, and formatting is most of a
// <Time>'s cost (ICU, about 10 µs), so each minute is formatted once per locale: a page draws the same
// moments on every view (the check-in page twenty, /apply its application's), and so do its readers.
export function formatTime(value: Date | string): string {
	const ms = new Date(value).getTime();
	const locale = getLocale();
	const key = `${locale} ${Math.floor(ms / 60_000)}`;
	let text = minutesSaid.get(key);
	if (text === undefined) {
		text = `${utcDateTime(locale).format(ms)} UTC`;
		if (minutesSaid.size >= MINUTES_KEPT) minutesSaid.clear();
		minutesSaid.set(key, text);
	}
	return text;
}

/**
 * The same moment in the reader's own zone (browser only: the server's zone is not the reader's), in the
 * page's locale; an English page keeps the reader's own English (en-GB, en-US...).
 */
export const formatLocalTime = (value: Date | string, timeZone?: string) =>
	new Intl.DateTimeFormat(getLocale() === baseLocale ? undefined : getLocale(), {
		dateStyle: 'medium',
		timeStyle: 'short',
		timeZone
	}).format(new Date(value));

const relativeTime = formatterCache((locale) => new Intl.RelativeTimeFormat(locale, { numeric: 'auto' }));

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
	['year', 365 * 24 * 3600],
	['month', 30 * 24 * 3600],
	['week', 7 * 24 * 3600],
	['day', 24 * 3600],
	['hour', 3600],
	['minute', 60]
];

/** "3 hours ago", "yesterday", "just now" (the pulse feed and every <Time>), in the page's locale. */
export function timeAgo(iso: string, now: number): string {
	const seconds = Math.round((Date.parse(iso) - now) / 1000);
	if (!Number.isFinite(seconds)) return common_some_time_ago();
	const format = relativeTime(getLocale());
	for (const [unit, size] of UNITS) {
		if (Math.abs(seconds) >= size) return format.format(Math.trunc(seconds / size), unit);
	}
	return common_just_now();
}

export const isoTime = (value: Date | string) => new Date(value).toISOString();

const plainNumber = formatterCache((locale) => new Intl.NumberFormat(locale));

/** A number in the page's locale ("1,234", "1.234", "1.5"). */
export const numberText = (value: number) => plainNumber(getLocale()).format(value);
