import { describe, expect, it } from 'vitest';
import { days } from './describe';

describe('waiting times in days', () => {
	it('one decimal from a day up', () => {
		expect(days(3 * 86_400)).toBe(3);
		expect(days(3.84 * 86_400)).toBe(3.8);
		expect(days(86_400)).toBe(1);
	});

	it('a same-day decision is above 0: two significant digits, at least 0.01 (issue 61)', () => {
		// Six hours, one hour: the old rounding to one decimal drew the second at 0.
		expect(days(6 * 3600)).toBe(0.25);
		expect(days(3600)).toBe(0.042);
		expect(days(60)).toBe(0.01);
		expect(days(1)).toBe(0.01);
		expect(days(0)).toBe(0.01);
	});
});
