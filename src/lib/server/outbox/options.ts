import { faultForLog } from '../db/errors';
/** How deliveries are claimed, sent, paced and recorded; the in-process worker and the cron run share them. */
export interface WorkerOptions {
	/** One attempt's limit (WEBHOOK_TIMEOUT_SECONDS). */
	timeoutMs: number;
	/** How long a claimed row stays out of other claims; longer than an attempt and its record take. */
	leaseMs: number;
	/** First retry delay, doubled per attempt up to `backoffCapMs`, then jittered. */
	backoffBaseMs: number;
	backoffCapMs: number;
	/** How long after the event the worker keeps trying. */
	retryWindowMs: number;
	/** Wait between looks when nothing is due, and after a database error. */
	pollMs: number;
	/** Attempts in flight at once per process. */
	concurrency: number;
	/**
	 * How long a finished attempt waits for others to be recorded with it (one statement for all), unless
	 * `concurrency` of them are waiting already: fewer statements per event under load.
	 */
	recordDelayMs: number;
	/** How long delivered and failed rows are kept (they hold applicant text). */
	keepMs: number;
	random: () => number;
}

export const defaultWorkerOptions = (timeoutSeconds: number): WorkerOptions => ({
	timeoutMs: timeoutSeconds * 1000,
	leaseMs: (2 * timeoutSeconds + 1) * 1000,
	backoffBaseMs: 5_000,
	backoffCapMs: 2 * 60 * 60 * 1000,
	retryWindowMs: 24 * 60 * 60 * 1000,
	pollMs: 1_000,
	concurrency: 64,
	recordDelayMs: 250,
	keepMs: 30 * 24 * 60 * 60 * 1000,
	random: Math.random
});

/** Exponential backoff with equal jitter: half the step fixed, half random. */
export function backoffMs(attempt: number, o: Pick<WorkerOptions, 'backoffBaseMs' | 'backoffCapMs' | 'random'>) {
	const step = Math.min(o.backoffCapMs, o.backoffBaseMs * 2 ** Math.min(attempt - 1, 30));
	return Math.round(step / 2 + (o.random() * step) / 2);
}

/** A wait that `wake()` ends early (a stop, enough work gathered, an endpoint free again). */
export function wakeableDelay() {
	let end = () => {};
	return {
		wait: (ms: number) =>
			new Promise<void>((resolve) => {
				const timer = setTimeout(resolve, ms);
				end = () => {
					clearTimeout(timer);
					resolve();
				};
			}),
		wake: () => end()
	};
}

// The fault without its stack: for a failed query its SQL and reason, never the parameters.
export const messageOf = (err: unknown) =>
	faultForLog(err)
		.split('\n')
		.filter((line) => !/^\s+at /.test(line))
		.join('\n');
