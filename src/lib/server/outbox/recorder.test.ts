import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RecordedAttempt } from './store';
import { RecordBatcher } from './recorder';
import { logger } from '$lib/server/platform/observability';

beforeEach(() => {
	vi.useFakeTimers();
});
afterEach(() => {
	vi.useRealTimers();
});

const attempt = (id: number): RecordedAttempt => ({
	id,
	attempts: 1,
	delivered: true,
	status: 204,
	error: null,
	final: false,
	retryInMs: 0
});

describe('the record batcher', () => {
	it('records what finished within the delay of the first in one statement', async () => {
		const batches: number[][] = [];
		const batcher = new RecordBatcher((b) => Promise.resolve(batches.push(b.map((a) => a.id))), 250, 64);
		batcher.add(attempt(1));
		await vi.advanceTimersByTimeAsync(100);
		batcher.add(attempt(2));
		expect(batches).toEqual([]);
		await vi.advanceTimersByTimeAsync(150);
		expect(batches).toEqual([[1, 2]]);
		expect(batcher.idle).toBe(true);
	});

	it('records at once when a batch is full, and flush() records without waiting', async () => {
		const batches: number[][] = [];
		const batcher = new RecordBatcher((b) => Promise.resolve(batches.push(b.map((a) => a.id))), 250, 2);
		batcher.add(attempt(1));
		batcher.add(attempt(2));
		await vi.advanceTimersByTimeAsync(0);
		expect(batches).toEqual([[1, 2]]);
		batcher.add(attempt(3));
		await batcher.flush();
		expect(batches).toEqual([[1, 2], [3]]);
	});

	it('tells each waiting attempt whether its record was written', async () => {
		let fail = true;
		const batcher = new RecordBatcher(() => (fail ? Promise.reject(new Error('lost')) : Promise.resolve()), 10, 64);
		const errors = vi.spyOn(logger, 'error').mockImplementation(() => {});
		const told: [number, boolean][] = [];
		batcher.add(attempt(1), (ok) => told.push([1, ok]));
		await vi.advanceTimersByTimeAsync(10);
		fail = false;
		batcher.add(attempt(2), (ok) => told.push([2, ok]));
		await vi.advanceTimersByTimeAsync(10);
		expect(told).toEqual([
			[1, false],
			[2, true]
		]);
		expect(errors).toHaveBeenCalledTimes(1);
		errors.mockRestore();
	});
});
