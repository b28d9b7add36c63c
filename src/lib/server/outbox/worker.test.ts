import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { endpoint, MemoryOutbox, slowSender } from './test-doubles';
import { backoffMs, defaultWorkerOptions, startClaimLoop } from './worker';
import { logger } from '$lib/server/platform/observability';

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

describe('the in-process claim loop', () => {
	beforeEach(() => {
		vi.useFakeTimers();
	});
	afterEach(() => {
		vi.useRealTimers();
	});

	const o = { ...defaultWorkerOptions(10), concurrency: 4, pollMs: 1000, recordDelayMs: 50 };
	const hook = endpoint('hook');

	function start(outbox: MemoryOutbox, ready: () => Promise<void> = () => Promise.resolve()) {
		const { sender, sent } = slowSender(100);
		const loop = startClaimLoop(
			{
				ready,
				cleanup: () => Promise.resolve(),
				store: () => outbox
			},
			[{ ...sender, queues: [hook] }],
			o
		);
		return { loop, sent };
	}

	it('sends what is due, then looks again every pollMs and sends what became due', async () => {
		const outbox = new MemoryOutbox();
		outbox.add(hook, 2);
		const { loop, sent } = start(outbox);
		await vi.advanceTimersByTimeAsync(200);
		expect(sent).toEqual(['evt_1', 'evt_2']);
		outbox.add(hook, 1);
		await vi.advanceTimersByTimeAsync(500);
		expect(sent).toHaveLength(2);
		await vi.advanceTimersByTimeAsync(1000);
		expect(sent).toEqual(['evt_1', 'evt_2', 'evt_3']);
		await loop.stop();
		expect(outbox.count('delivered')).toBe(3);
	});

	it('a database outage pauses it; it carries on when the database answers', async () => {
		const outbox = new MemoryOutbox();
		outbox.add(hook, 1);
		let down = true;
		const unreachable = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
		const warn = vi.spyOn(logger, 'warn').mockImplementation(() => {});
		const { loop, sent } = start(outbox, () => (down ? Promise.reject(unreachable) : Promise.resolve()));
		await vi.advanceTimersByTimeAsync(3500);
		expect(sent).toEqual([]);
		down = false;
		await vi.advanceTimersByTimeAsync(1000);
		expect(sent).toEqual(['evt_1']);
		// Said once when it went away and once when it came back, not at every look.
		expect(warn).toHaveBeenCalledTimes(2);
		warn.mockRestore();
		await loop.stop();
	});

	it('stop() waits for the attempts in flight and records them', async () => {
		const outbox = new MemoryOutbox();
		outbox.add(hook, 3);
		const { loop } = start(outbox);
		await vi.advanceTimersByTimeAsync(10);
		const stopping = loop.stop();
		await vi.advanceTimersByTimeAsync(200);
		await stopping;
		expect(outbox.count('delivered')).toBe(3);
		expect(outbox.records).toHaveLength(1);
	});
});
