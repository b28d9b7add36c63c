import type { DatabaseHandle } from '../db/client';
import { isDatabaseUnavailable } from '../db/errors';
import { Sender } from './deliver';
import type { WebhookEndpoint } from './endpoints';
import { claimDue, deleteSettled, recordAttempts, type ClaimedDelivery, type RecordedAttempt } from './outbox';

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

export interface WebhookWorker {
	/** Stops claiming, waits for the attempts in flight and records them. */
	stop(): Promise<void>;
}

/**
 * Sends due outbox rows from this process, outside every request, until stopped. A database outage
 * only pauses it: it looks again every `pollMs` and carries on when the database answers.
 */
export function startWebhookWorker(
	database: DatabaseHandle,
	endpoints: readonly WebhookEndpoint[],
	secret: string,
	options: WorkerOptions
): WebhookWorker {
	const byHash = new Map(endpoints.map((e) => [e.hash, e]));
	const hashes = [...byHash.keys()];
	const sender = new Sender(secret, options.timeoutMs);
	const inFlight = new Set<Promise<void>>();
	const results: RecordedAttempt[] = [];
	let recording: Promise<void> | null = null;
	let stopped = false;
	let outage = false;
	let lastCleanup = 0;

	const poll = wakeableDelay();
	const gather = wakeableDelay();

	// Results are recorded together: one statement for whatever finished within `recordDelayMs` of the
	// first (or sooner, once a claim's worth has finished), then for whatever finished while it ran.
	async function recordAll() {
		if (!stopped) await gather.wait(options.recordDelayMs);
		while (results.length > 0) {
			const batch = results.splice(0);
			try {
				await recordAttempts(database.db, batch, options.retryWindowMs);
			} catch (err) {
				// Unrecorded rows are claimed again when their lease ends: at least once, same webhook-id.
				if (!isDatabaseUnavailable(err)) console.error('webhooks: could not record attempts:', messageOf(err));
			}
		}
		recording = null;
	}

	async function attempt(row: ClaimedDelivery) {
		const result = await sender.send(byHash.get(row.urlHash)!, row);
		const retryInMs = Math.max(backoffMs(row.attempts, options), result.retryAfterMs);
		results.push({ ...result, retryInMs, id: row.id, attempts: row.attempts });
		recording ??= recordAll();
		if (results.length >= options.concurrency) gather.wake();
	}

	async function loop() {
		while (!stopped) {
			const free = options.concurrency - inFlight.size;
			if (free < options.concurrency / 2) {
				await Promise.race(inFlight);
				continue;
			}
			let rows: ClaimedDelivery[];
			try {
				await database.ready();
				if (Date.now() - lastCleanup > CLEANUP_INTERVAL_MS) {
					lastCleanup = Date.now();
					await deleteSettled(database.db, options.keepMs);
				}
				rows = await claimDue(database.db, hashes, free, options.leaseMs);
				if (outage) console.warn('webhooks: the database answers again; deliveries resume.');
				outage = false;
			} catch (err) {
				if (!isDatabaseUnavailable(err)) console.error('webhooks: could not claim deliveries:', messageOf(err));
				else if (!outage) console.warn('webhooks: the database is unreachable; deliveries wait for it.');
				outage ||= isDatabaseUnavailable(err);
				await poll.wait(options.pollMs);
				continue;
			}
			for (const row of rows) {
				const p: Promise<void> = attempt(row).finally(() => inFlight.delete(p));
				inFlight.add(p);
			}
			if (rows.length < free && !stopped) await poll.wait(options.pollMs);
		}
	}

	const running = loop();
	return {
		async stop() {
			stopped = true;
			poll.wake();
			gather.wake();
			await running;
			await Promise.allSettled([...inFlight]);
			await recording;
			await sender.close();
		}
	};
}

/** A wait that `wake()` ends early (a stop, or enough work gathered). */
function wakeableDelay() {
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

const CLEANUP_INTERVAL_MS = 10 * 60 * 1000;

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));
