import { describe, expect, it } from 'vitest';
import { backoffMs, defaultWorkerOptions } from './worker';

describe('webhook retry schedule', () => {
	const o = defaultWorkerOptions(10);

	it('doubles from 5 s, jittered between half and all of each step, capped at 2 hours', () => {
		const low = { ...o, random: () => 0 };
		const high = { ...o, random: () => 1 };
		expect([1, 2, 3, 4].map((n) => backoffMs(n, high))).toEqual([5_000, 10_000, 20_000, 40_000]);
		expect([1, 2, 3, 4].map((n) => backoffMs(n, low))).toEqual([2_500, 5_000, 10_000, 20_000]);
		expect(backoffMs(40, high)).toBe(2 * 60 * 60 * 1000);
		expect(backoffMs(1_000, low)).toBe(60 * 60 * 1000);
	});

	it('tries for 24 hours, with a 10 s attempt and a lease longer than an attempt', () => {
		expect(o.retryWindowMs).toBe(24 * 60 * 60 * 1000);
		expect(o.timeoutMs).toBe(10_000);
		expect(o.leaseMs).toBeGreaterThan(o.timeoutMs);
		// Roughly how many attempts a receiver that stays down gets before the delivery fails.
		let elapsed = 0;
		let attempts = 0;
		while (elapsed <= o.retryWindowMs) elapsed += backoffMs(++attempts, { ...o, random: () => 0.5 });
		expect(attempts).toBeGreaterThan(10);
		expect(attempts).toBeLessThan(40);
	});
});
