/**
 * Times an admin types (docs/decisions/0049-programmes-rounds-and-time-zones.md): ISO 8601 with an offset
 * (`2027-03-01T09:00:00+01:00`, `…Z`), or a wall-clock time `YYYY-MM-DDTHH:MM` read in the community's
 * time zone (COMMUNITY_TIME_ZONE, an IANA name). Zone rules come from Intl (the ICU data Node ships);
 * no arithmetic of our own beyond asking Intl what a zone's clock reads at an instant.
 *
 * Across daylight-saving changes: a wall-clock time the clocks skip (02:30 on a spring-forward night in
 * Europe/Berlin) does not exist and is refused, naming the gap; one they pass twice (02:30 on a
 * fall-back night) is its first occurrence, the earlier instant (the one before the clocks go back).
 */

export type TimeInput =
	| { ok: true; at: Date }
	| { ok: false; reason: 'format' }
	/** The local time falls in a gap the clocks skip; `from`/`to` are the wall-clock times around it. */
	| { ok: false; reason: 'skipped'; from: string; to: string };

export { isTimeZone } from '$lib/platform/time-zone';

const WITH_OFFSET = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?(Z|[+-]\d{2}:\d{2})$/i;
const LOCAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/;

/** Parses an admin's time; `zone` reads a time without an offset. */
export function parseTimeInput(raw: string, zone: string): TimeInput {
	const text = raw.trim();
	const offset = WITH_OFFSET.exec(text);
	if (offset) {
		const [, y, mo, d, h, mi, s = '0', ms = '0', tz] = offset;
		const fields = [y, mo, d, h, mi, s].map(Number) as [number, number, number, number, number, number];
		if (!validFields(...fields)) return { ok: false, reason: 'format' };
		const minutes = tz!.toUpperCase() === 'Z' ? 0 : offsetMinutes(tz!);
		if (minutes === null) return { ok: false, reason: 'format' };
		const utc = Date.UTC(
			fields[0],
			fields[1] - 1,
			fields[2],
			fields[3],
			fields[4],
			fields[5],
			Number(ms.padEnd(3, '0'))
		);
		return { ok: true, at: new Date(utc - minutes * 60_000) };
	}
	const local = LOCAL.exec(text);
	if (!local) return { ok: false, reason: 'format' };
	const [y, mo, d, h, mi] = local.slice(1).map(Number) as [number, number, number, number, number];
	if (!validFields(y, mo, d, h, mi, 0)) return { ok: false, reason: 'format' };
	return wallClockIn(zone, Date.UTC(y, mo - 1, d, h, mi));
}

function validFields(y: number, mo: number, d: number, h: number, mi: number, s: number): boolean {
	if (mo < 1 || mo > 12 || h > 23 || mi > 59 || s > 59 || d < 1) return false;
	return d <= new Date(Date.UTC(y, mo, 0)).getUTCDate();
}

function offsetMinutes(tz: string): number | null {
	const [h, m] = tz.slice(1).split(':').map(Number) as [number, number];
	if (h > 23 || m > 59) return null;
	return (tz.startsWith('-') ? -1 : 1) * (h * 60 + m);
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The zone's clock at `instant`, as the UTC milliseconds of the same wall-clock reading. */
function wallClockAt(zone: string, instant: number): number {
	let format = formatters.get(zone);
	if (!format) {
		format = new Intl.DateTimeFormat('en-US', {
			timeZone: zone,
			hourCycle: 'h23',
			year: 'numeric',
			month: 'numeric',
			day: 'numeric',
			hour: 'numeric',
			minute: 'numeric',
			second: 'numeric'
		});
		formatters.set(zone, format);
	}
	const part: Record<string, number> = {};
	for (const p of format.formatToParts(new Date(instant))) if (p.type !== 'literal') part[p.type] = Number(p.value);
	return Date.UTC(part.year!, part.month! - 1, part.day, part.hour, part.minute, part.second);
}

/** The zone's offset at `instant`, in milliseconds (local minus UTC). */
const offsetAt = (zone: string, instant: number) => wallClockAt(zone, instant) - Math.floor(instant / 1000) * 1000;

const HOUR = 3_600_000;

/**
 * The instant whose wall clock in `zone` reads `wall` (its fields as UTC milliseconds). Offsets a day
 * either side bound every candidate: each instant `wall - offset` that reads back as `wall` is one.
 */
function wallClockIn(zone: string, wall: number): TimeInput {
	const offsets = new Set([offsetAt(zone, wall - 24 * HOUR), offsetAt(zone, wall), offsetAt(zone, wall + 24 * HOUR)]);
	const candidates = [...offsets]
		.map((offset) => wall - offset)
		.filter((instant) => wallClockAt(zone, instant) === wall)
		.sort((a, b) => a - b);
	if (candidates.length) return { ok: true, at: new Date(candidates[0]!) };
	// In a gap: find the instant the offset changes (between the two readings), and name the clock either side.
	const before = offsetAt(zone, wall - 24 * HOUR);
	const after = offsetAt(zone, wall + 24 * HOUR);
	let low = wall - Math.max(before, after);
	let high = wall - Math.min(before, after);
	while (high - low > 1000) {
		const mid = low + Math.floor((high - low) / 2000) * 1000;
		if (offsetAt(zone, mid) === before) low = mid;
		else high = mid;
	}
	return { ok: false, reason: 'skipped', from: wallText(high + before), to: wallText(high + after) };
}

const wallText = (wall: number) => new Date(wall).toISOString().slice(0, 16);
