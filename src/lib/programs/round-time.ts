/**
 * A round's time as people read it: date and time in the reader's language, in the community's time zone
 * (COMMUNITY_TIME_ZONE), the zone named so that nobody reads it as their own. One implementation for the
 * server's pages and the home page's list (which the browser fills from GET /api/programs).
 */
export const roundTimeText = (at: Date, zone: string, locale: string) =>
	new Intl.DateTimeFormat(locale === 'en' ? 'en-GB' : locale, {
		dateStyle: 'long',
		timeStyle: 'short',
		timeZone: zone
	}).format(at) + ` (${zone})`;
