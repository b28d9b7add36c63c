import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { claimBudgetMs, CRON_MAX_DURATION_SECONDS, runDueDeliveries } from './cron';
import { defaultWorkerOptions } from './options';
import { endpoint, MemoryOutbox, slowSender } from './test-doubles';

const options = { ...defaultWorkerOptions(10), concurrency: 2, recordDelayMs: 50, pollMs: 100, random: () => 0 };

beforeEach(() => {
	vi.useFakeTimers();
});
afterEach(() => {
	vi.useRealTimers();
});

/** Runs `run` to its end on the fake clock. */
async function settle<T>(run: Promise<T>): Promise<T> {
	let done = false;
	void run.finally(() => (done = true));
	while (!done) await vi.advanceTimersByTimeAsync(10);
	return run;
}

describe('a cron run of due deliveries', () => {
	it('stops claiming once its time budget is spent and leaves the rest due for the next run', async () => {
		const hook = endpoint('hook');
		const outbox = new MemoryOutbox();
		outbox.add(hook, 10);
		const { sender, sent } = slowSender(1000);
		const started = Date.now();
		const report = await settle(runDueDeliveries(() => outbox, [{ ...sender, queues: [hook] }], options, 2500));
		// Two at a time, a second each: claims at 0, 1 and 2 s as attempts end; none at or after the 2.5 s budget.
		expect(new Set(outbox.claims.map((c) => c.at - started))).toEqual(new Set([0, 1000, 2000]));
		expect(report).toMatchObject({ claimed: 6, attempted: 6, delivered: 6, budgetSpent: true });
		expect(sent).toHaveLength(6);
		// What it claimed is recorded before it answers; the rest waits, unclaimed, for the next run.
		expect(outbox.count('delivered')).toBe(6);
		expect(outbox.count('due')).toBe(4);
		const next = await settle(runDueDeliveries(() => outbox, [{ ...sender, queues: [hook] }], options, 60_000));
		expect(next).toMatchObject({ claimed: 4, delivered: 4, budgetSpent: false });
		expect(new Set(sent).size).toBe(10);
	});

	it('answers at once when nothing is due', async () => {
		const outbox = new MemoryOutbox();
		const { sender } = slowSender(1000);
		const report = await settle(
			runDueDeliveries(() => outbox, [{ ...sender, queues: [endpoint('hook')] }], options, 40_000)
		);
		expect(report).toMatchObject({ claimed: 0, attempted: 0, budgetSpent: false });
		expect(report.durationMs).toBeLessThan(100);
	});

	it('a failed attempt is recorded for a later retry, not sent again in the same run', async () => {
		const hook = endpoint('hook');
		const outbox = new MemoryOutbox();
		outbox.add(hook, 1);
		const { sender, sent } = slowSender(10, () => ({ delivered: false, status: 500, error: 'HTTP 500' }));
		const report = await settle(runDueDeliveries(() => outbox, [{ ...sender, queues: [hook] }], options, 40_000));
		expect(report).toMatchObject({ claimed: 1, attempted: 1, delivered: 0, notDelivered: 1 });
		expect(sent).toEqual(['evt_1']);
		expect(outbox.count('retry')).toBe(1);
	});

	it('sends a chat channel its messages one at a time, in order, within one run', async () => {
		const channel = endpoint('channel', 'discord');
		const outbox = new MemoryOutbox();
		outbox.add(channel, 3);
		const { sender, sent } = slowSender(100);
		const report = await settle(runDueDeliveries(() => outbox, [{ ...sender, queues: [channel] }], options, 40_000));
		expect(sent).toEqual(['evt_1', 'evt_2', 'evt_3']);
		expect(outbox.claims.map((c) => c.ids)).toEqual([[1], [2], [3]]);
		expect(report).toMatchObject({ claimed: 3, delivered: 3 });
	});
});

describe("the cron run's time budget", () => {
	it('keeps room below the function limit for the last attempts and their record', () => {
		expect(claimBudgetMs(10_000)).toBe(CRON_MAX_DURATION_SECONDS * 1000 - 20_000);
		expect(claimBudgetMs(10_000) + 10_000).toBeLessThan(CRON_MAX_DURATION_SECONDS * 1000);
	});

	it("follows the platform's own deadline when it is sooner, and always leaves a second to claim", () => {
		const now = 1_000_000;
		expect(claimBudgetMs(10_000, new Date(now + 30_000), now)).toBe(10_000);
		expect(claimBudgetMs(10_000, new Date(now + 5_000), now)).toBe(1000);
		expect(claimBudgetMs(10_000, new Date(now + 600_000), now)).toBe(40_000);
	});
});
