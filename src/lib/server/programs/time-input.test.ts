import { describe, expect, it } from 'vitest';
import { isTimeZone, parseTimeInput } from './time-input';

const at = (raw: string, zone = 'UTC') => {
	const parsed = parseTimeInput(raw, zone);
	if (!parsed.ok) throw new Error(`${raw} in ${zone}: ${JSON.stringify(parsed)}`);
	return parsed.at.toISOString();
};

describe('parseTimeInput: ISO 8601 with an offset, or YYYY-MM-DDTHH:MM in COMMUNITY_TIME_ZONE', () => {
	it('reads an offset or Z whatever the zone', () => {
		expect(at('2027-03-01T09:00:00+01:00', 'America/New_York')).toBe('2027-03-01T08:00:00.000Z');
		expect(at('2027-03-01T09:00Z', 'Europe/Berlin')).toBe('2027-03-01T09:00:00.000Z');
		expect(at('2027-03-01T09:00:00.250-05:30')).toBe('2027-03-01T14:30:00.250Z');
	});

	it('reads a wall-clock time in the zone (UTC by default)', () => {
		expect(at('2027-03-01T09:00')).toBe('2027-03-01T09:00:00.000Z');
		expect(at('2027-01-15T12:00', 'Europe/Berlin')).toBe('2027-01-15T11:00:00.000Z');
		expect(at('2027-07-15T12:00', 'Europe/Berlin')).toBe('2027-07-15T10:00:00.000Z');
		expect(at('2027-07-15T12:00', 'America/New_York')).toBe('2027-07-15T16:00:00.000Z');
	});

	it('refuses what is not a time', () => {
		for (const raw of [
			'',
			'tomorrow',
			'2027-02-30T10:00',
			'2027-13-01T10:00',
			'2027-03-01T24:00',
			'2027-03-01 10:00',
			'2027-03-01T10:00+25:00'
		])
			expect(parseTimeInput(raw, 'UTC')).toEqual({ ok: false, reason: 'format' });
	});

	describe('daylight-saving days', () => {
		it('Europe/Berlin, spring forward (2027-03-28, 02:00 → 03:00): either side is right, the skipped hour is refused naming the gap', () => {
			expect(at('2027-03-28T01:59', 'Europe/Berlin')).toBe('2027-03-28T00:59:00.000Z');
			expect(at('2027-03-28T03:00', 'Europe/Berlin')).toBe('2027-03-28T01:00:00.000Z');
			expect(parseTimeInput('2027-03-28T02:30', 'Europe/Berlin')).toEqual({
				ok: false,
				reason: 'skipped',
				from: '2027-03-28T02:00',
				to: '2027-03-28T03:00'
			});
		});

		it('Europe/Berlin, fall back (2027-10-31, 03:00 → 02:00): the repeated hour is its first occurrence', () => {
			expect(at('2027-10-31T02:30', 'Europe/Berlin')).toBe('2027-10-31T00:30:00.000Z');
			expect(at('2027-10-31T03:00', 'Europe/Berlin')).toBe('2027-10-31T02:00:00.000Z');
			expect(at('2027-10-31T01:59', 'Europe/Berlin')).toBe('2027-10-30T23:59:00.000Z');
		});

		it('America/New_York, spring forward (2027-03-14, 02:00 → 03:00) and fall back (2027-11-07, 02:00 → 01:00)', () => {
			expect(at('2027-03-14T01:30', 'America/New_York')).toBe('2027-03-14T06:30:00.000Z');
			expect(at('2027-03-14T03:30', 'America/New_York')).toBe('2027-03-14T07:30:00.000Z');
			expect(parseTimeInput('2027-03-14T02:15', 'America/New_York')).toEqual({
				ok: false,
				reason: 'skipped',
				from: '2027-03-14T02:00',
				to: '2027-03-14T03:00'
			});
			expect(at('2027-11-07T01:30', 'America/New_York')).toBe('2027-11-07T05:30:00.000Z');
			expect(at('2027-11-07T02:00', 'America/New_York')).toBe('2027-11-07T07:00:00.000Z');
		});

		it('a zone whose change is not an hour (Australia/Lord_Howe, 30 minutes)', () => {
			expect(parseTimeInput('2027-10-03T02:15', 'Australia/Lord_Howe')).toMatchObject({ ok: false, reason: 'skipped' });
			expect(at('2027-10-03T02:45', 'Australia/Lord_Howe')).toBe('2027-10-02T15:45:00.000Z');
		});
	});
});

describe('isTimeZone', () => {
	it('knows IANA names and refuses others', () => {
		expect(isTimeZone('UTC')).toBe(true);
		expect(isTimeZone('Europe/Berlin')).toBe(true);
		expect(isTimeZone('America/New_York')).toBe(true);
		expect(isTimeZone('Mars/Olympus_Mons')).toBe(false);
		expect(isTimeZone('')).toBe(false);
	});
});
