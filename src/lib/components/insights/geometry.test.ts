import { describe, expect, it } from 'vitest';
import { FRAME, labelIndexes, linePath, niceScale, plotHeight, spanStart, yOf } from './geometry';

describe('insights chart geometry', () => {
	it('rounds the y axis up to 1, 2 or 5 times a power of ten per tick', () => {
		expect(niceScale(37)).toEqual({ max: 40, ticks: [0, 10, 20, 30, 40] });
		expect(niceScale(3)).toEqual({ max: 3, ticks: [0, 1, 2, 3] });
		expect(niceScale(0.7)).toEqual({ max: 0.8, ticks: [0, 0.2, 0.4, 0.6, 0.8] });
		expect(niceScale(1234).max).toBe(1500);
		// Counts: whole ticks only, however small the largest count.
		expect(niceScale(1, 4, true)).toEqual({ max: 1, ticks: [0, 1] });
		expect(niceScale(2, 4, true)).toEqual({ max: 2, ticks: [0, 1, 2] });
		expect(niceScale(1)).toEqual({ max: 1, ticks: [0, 0.5, 1] });
	});

	it('an empty or all-zero series still has an axis from 0 to 1', () => {
		expect(niceScale(0)).toEqual({ max: 1, ticks: [0, 1] });
		expect(niceScale(Number.NaN)).toEqual({ max: 1, ticks: [0, 1] });
	});

	it('puts 0 on the bottom edge and the maximum on the top edge', () => {
		expect(yOf(0, 10)).toBe(FRAME.top + plotHeight);
		expect(yOf(10, 10)).toBe(FRAME.top);
	});

	it('breaks a line where a value is missing instead of drawing it at zero', () => {
		const path = linePath([1, 2, null, 4], 4);
		expect(path.match(/M/g)).toHaveLength(2);
		expect(path.match(/L/g)).toHaveLength(1);
		expect(linePath([null, null], 1)).toBe('');
	});

	it('labels at most about seven positions, always the newest', () => {
		expect(labelIndexes(26)).toEqual([1, 5, 9, 13, 17, 21, 25]);
		expect(labelIndexes(3)).toEqual([0, 1, 2]);
		expect(labelIndexes(0)).toEqual([]);
	});

	it('starts the x axis at the first entry with data, keeping at least the newest few (issue 61)', () => {
		// One week of data at the end of 26: the axis spans the last 4 weeks, not six months.
		const oneWeek = Array.from({ length: 26 }, (_, i) => i === 25);
		expect(spanStart(oneWeek, 4)).toBe(22);
		// Data from week 10 on: from there.
		expect(
			spanStart(
				Array.from({ length: 26 }, (_, i) => i >= 10),
				4
			)
		).toBe(10);
		// Data in the first week: all of them; none at all: the newest few; fewer entries than the minimum: all.
		expect(spanStart([true, false, false], 2)).toBe(0);
		expect(spanStart([false, false, false, false], 2)).toBe(2);
		expect(spanStart([false, true], 4)).toBe(0);
	});
});
