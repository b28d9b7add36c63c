import type { DatabaseHandle } from '../db/client';
import { closeChannels, type Channel } from './channel';
import { Dispatcher, databaseStore, type DeliveryStore, type DispatchCounts } from './dispatch';
import { wakeableDelay, type WorkerOptions } from './options';
import { deleteSettled } from './store';

/** The cron function's limit on Vercel (the route's `config.maxDuration`). */
export const CRON_MAX_DURATION_SECONDS = 60;

/** Left after the last claim for its attempts (each at most `timeoutMs`) and their record. */
const FINISH_MARGIN_MS = 10_000;

/**
 * How long a run may go on claiming: the function's limit (or the platform's own deadline, when it
 * tells one) less the time the last attempts and their record need. At least a second, so a run always
 * makes progress.
 */
export function claimBudgetMs(timeoutMs: number, deadline?: Date, now = Date.now()): number {
	const limit = deadline
		? Math.min(deadline.getTime() - now, CRON_MAX_DURATION_SECONDS * 1000)
		: CRON_MAX_DURATION_SECONDS * 1000;
	return Math.max(1000, limit - timeoutMs - FINISH_MARGIN_MS);
}

/** What a run did, as the cron endpoint answers it. */
export interface DeliveryRunReport extends DispatchCounts {
	claimed: number;
	/** True when the budget ended the run with rows perhaps still due: the next run takes them. */
	budgetSpent: boolean;
	durationMs: number;
}

/**
 * One bounded run of the claim/send/record code (no long-running process: Vercel Cron, or a first
 * attempt after the response that created an event). Claims while rows are due and `budgetMs` lasts,
 * waits for the attempts it started and records them, and returns what it did. What it leaves is due
 * for the next run; what another run or process claimed is leased, so no attempt is sent twice.
 */
export async function runDueDeliveries(
	store: () => DeliveryStore,
	channels: readonly Channel[],
	options: WorkerOptions,
	budgetMs: number
): Promise<DeliveryRunReport> {
	const started = Date.now();
	const deadline = started + budgetMs;
	const wake = wakeableDelay();
	const dispatcher = new Dispatcher(store, channels, options, () => wake.wake());
	let claimed = 0;
	let budgetSpent = false;
	try {
		for (;;) {
			const left = deadline - Date.now();
			if (left <= 0) {
				budgetSpent = true;
				break;
			}
			const free = options.concurrency - dispatcher.inFlight.size;
			if (free < options.concurrency / 2) {
				await Promise.race([...dispatcher.inFlight, wake.wait(left)]);
				wake.wake();
				continue;
			}
			const n = await dispatcher.claimAndSend(free);
			claimed += n;
			if (n === free) continue;
			// Nothing more due now: wait while an attempt, a record or a channel's short pause may make some due.
			if (!dispatcher.busyWithin(left)) break;
			await Promise.race([...dispatcher.inFlight, wake.wait(Math.min(options.pollMs, left))]);
			// No timer of a finished wait outlives it.
			wake.wake();
		}
	} finally {
		await dispatcher.finish();
	}
	return { claimed, ...dispatcher.counts, budgetSpent, durationMs: Date.now() - started };
}

export const NOTHING_DONE: DeliveryRunReport = {
	claimed: 0,
	attempted: 0,
	delivered: 0,
	notDelivered: 0,
	budgetSpent: false,
	durationMs: 0
};

/**
 * Delivery without a long-running process (Vercel Cron, or a first attempt after a response): deletes
 * settled rows past their keeping time, then one run of the worker's claim/send/record code for
 * `channels` within `budgetMs` (by default what the cron function's limit leaves); closes the channels.
 */
export async function deliverDue(
	database: DatabaseHandle,
	channels: readonly Channel[],
	options: WorkerOptions,
	budgetMs = claimBudgetMs(options.timeoutMs)
): Promise<DeliveryRunReport> {
	if (channels.length === 0) return NOTHING_DONE;
	try {
		await database.ready();
		await deleteSettled(database.db, options.keepMs);
		return await runDueDeliveries(() => databaseStore(database.db), channels, options, budgetMs);
	} finally {
		await closeChannels(channels);
	}
}
