/**
 * A cursor's time is a real instant (no 2026-02-30, month 13, hour 24 or year 0000, which the database
 * would refuse to cast): its fields read back unchanged from the date they make.
 */
export function isRealTime(at: string): boolean {
	const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0] = at.split(/[-T:.Z]/).map(Number);
	if (!year) return false;
	const date = new Date(0);
	date.setUTCFullYear(year, month - 1, day);
	date.setUTCHours(hour, minute, second);
	return (
		date.getUTCFullYear() === year &&
		date.getUTCMonth() === month - 1 &&
		date.getUTCDate() === day &&
		date.getUTCHours() === hour &&
		date.getUTCMinutes() === minute &&
		date.getUTCSeconds() === second
	);
}
