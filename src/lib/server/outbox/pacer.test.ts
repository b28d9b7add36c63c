import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ChatPacer } from './pacer';

beforeEach(() => {
	vi.useFakeTimers();
});
afterEach(() => {
	vi.useRealTimers();
});

describe('the chat pacer', () => {
	it('gives a channel one message at a time: taken, it is not ready until released', () => {
		const pacer = new ChatPacer(['a', 'b'], () => {});
		expect(pacer.ready(10)).toEqual(['a', 'b']);
		pacer.take('a');
		expect(pacer.ready(10)).toEqual(['b']);
		expect(pacer.ready(0)).toEqual([]);
		pacer.release('a', 0);
		expect(pacer.ready(10)).toEqual(['a', 'b']);
	});

	it("waits out the channel's own word (an empty bucket, a Retry-After) and says when it is free again", async () => {
		const onFree = vi.fn();
		const pacer = new ChatPacer(['a'], onFree);
		pacer.take('a');
		pacer.release('a', 1500);
		expect(pacer.ready(1)).toEqual([]);
		expect(pacer.busyWithin(1000)).toBe(false);
		expect(pacer.busyWithin(2000)).toBe(true);
		await vi.advanceTimersByTimeAsync(1499);
		expect(onFree).not.toHaveBeenCalled();
		await vi.advanceTimersByTimeAsync(1);
		expect(onFree).toHaveBeenCalledTimes(1);
		expect(pacer.ready(1)).toEqual(['a']);
	});

	it('no pause timer outlives stop()', () => {
		const onFree = vi.fn();
		const pacer = new ChatPacer(['a'], onFree);
		pacer.release('a', 60 * 60 * 1000);
		pacer.stop();
		pacer.release('a', 1000);
		expect(vi.getTimerCount()).toBe(0);
		vi.advanceTimersByTime(2 * 60 * 60 * 1000);
		expect(onFree).not.toHaveBeenCalled();
	});
});
