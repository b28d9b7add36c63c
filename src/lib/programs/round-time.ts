/**
 * A round's time as people read it: date and time in the reader's language, in the community's time zone
 * (COMMUNITY_TIME_ZONE), the zone named so that nobody reads it as their own. One implementation for the
 * server's pages and the home page's list (which the browser fills from GET /api/programs).
 */
export const roundTimeText = (at: Date, zone: string, locale: string) =>
	formatter(locale, zone).format(at) + ` (${zone})`;

// Making an Intl.DateTimeFormat costs far more than formatting with one (a list of 20 programmes made
// 20): one per locale and zone, kept (five locales, one zone in practice).
const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(locale: string, zone: string): Intl.DateTimeFormat {
	const key = `${locale} ${zone}`;
	let made = formatters.get(key);
	if (!made) {
		made = new Intl.DateTimeFormat(locale === 'en' ? 'en-GB' : locale, {
			dateStyle: 'long',
			timeStyle: 'short',
			timeZone: zone
		});
		if (formatters.size > 100) formatters.clear();
		formatters.set(key, made);
	}
	return made;
}
