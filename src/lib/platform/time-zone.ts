/** True when `zone` is an IANA time zone name this runtime knows (COMMUNITY_TIME_ZONE). */
export function isTimeZone(zone: string): boolean {
	if (zone.trim() === '') return false;
	try {
		new Intl.DateTimeFormat('en-US', { timeZone: zone });
		return true;
	} catch {
		return false;
	}
}
