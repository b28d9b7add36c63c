// One fixed format and time zone, so the server's HTML and the browser's agree.
const dateTime = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });

export const formatTime = (value: Date | string) => `${dateTime.format(new Date(value))} UTC`;

export const isoTime = (value: Date | string) => new Date(value).toISOString();

/** 0x1234…abcd, for places where the full address is also given (title, copy). */
export const shortAddress = (address: string) => `${address.slice(0, 6)}…${address.slice(-4)}`;
