// One fixed format and time zone, so the server's HTML and the browser's agree.
const dateTime = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });

export const formatTime = (value: Date | string) => `${dateTime.format(new Date(value))} UTC`;

export const isoTime = (value: Date | string) => new Date(value).toISOString();
