// One fixed format and time zone, so the server's HTML and the browser's first render agree.
const dateTime = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });

export const formatTime = (value: Date | string) => `${dateTime.format(new Date(value))} UTC`;

/** The same moment in the reader's own zone (browser only: the server's zone is not the reader's). */
export const formatLocalTime = (value: Date | string, timeZone?: string) =>
	new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone }).format(new Date(value));

export const isoTime = (value: Date | string) => new Date(value).toISOString();
