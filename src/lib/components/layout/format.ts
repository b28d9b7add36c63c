// One fixed format and time zone, so the server's HTML and the browser's first render agree.
const dateTime = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });

export const formatTime = (value: Date | string) => `${dateTime.format(new Date(value))} UTC`;

/** The same moment in the reader's own zone (browser only: the server's zone is not the reader's). */
export const formatLocalTime = (value: Date | string, timeZone?: string) =>
	new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone }).format(new Date(value));

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
	['year', 365 * 24 * 3600],
	['month', 30 * 24 * 3600],
	['week', 7 * 24 * 3600],
	['day', 24 * 3600],
	['hour', 3600],
	['minute', 60]
];

/** "3 hours ago", "yesterday", "just now" (the pulse feed and every <Time>; English, as the pages are). */
export function timeAgo(iso: string, now: number): string {
	const seconds = Math.round((Date.parse(iso) - now) / 1000);
	if (!Number.isFinite(seconds)) return 'some time ago';
	const format = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
	for (const [unit, size] of UNITS) {
		if (Math.abs(seconds) >= size) return format.format(Math.trunc(seconds / size), unit);
	}
	return 'just now';
}

export const isoTime = (value: Date | string) => new Date(value).toISOString();
