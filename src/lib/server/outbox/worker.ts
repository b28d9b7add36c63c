import type { DatabaseHandle } from '../db/client';
import { isDatabaseUnavailable } from '../db/errors';
import { closeChannels, type Channel } from './channel';
import { Dispatcher, databaseStore, type DeliveryStore } from './dispatch';
import { messageOf, wakeableDelay, type WorkerOptions } from './options';
import { deleteSettled } from './store';
import { logger } from '../platform/observability';

export { backoffMs, defaultWorkerOptions, type WorkerOptions } from './options';

export interface OutboxWorker {
	/** Stops claiming, waits for the attempts in flight and records them. */
	stop(): Promise<void>;
}

/** What the claim loop works with: the outbox behind `store`, and the database's state. */
export interface ClaimLoopParts {
	/** Resolves once the database answers with a current schema. */
	ready: () => Promise<void>;
	/** Deletes settled rows past their keeping time. */
	cleanup: () => Promise<unknown>;
	store: () => DeliveryStore;
}

/**
 * The in-process worker (adapter-node): sends the due outbox rows of `channels` from this process,
 * outside every request, until stopped; the stop closes the channels.
 */
export function startOutboxWorker(
	database: DatabaseHandle,
	channels: readonly Channel[],
	options: WorkerOptions
): OutboxWorker {
	return startClaimLoop(
		{
			ready: () => database.ready(),
			cleanup: () => deleteSettled(database.db, options.keepMs),
			store: () => databaseStore(database.db)
		},
		channels,
		options
	);
}

/**
 * The claim loop: claims whenever attempts may start, waits `pollMs` when nothing is due. A database
 * outage only pauses it: it looks again every `pollMs` and carries on when the database answers. The
 * claims, attempts and records are the Dispatcher's, as in a cron run.
 */
export function startClaimLoop(
	parts: ClaimLoopParts,
	channels: readonly Channel[],
	options: WorkerOptions
): OutboxWorker {
	const poll = wakeableDelay();
	// Set when a paced queue may take its next message: the loop claims again at once, not after a poll.
	let claimAgain = false;
	const dispatcher = new Dispatcher(parts.store, channels, options, () => {
		claimAgain = true;
		poll.wake();
	});
	let stopped = false;
	let outage = false;
	let lastCleanup = 0;

	async function loop() {
		while (!stopped) {
			const free = options.concurrency - dispatcher.inFlight.size;
			if (free < options.concurrency / 2) {
				await Promise.race(dispatcher.inFlight);
				continue;
			}
			let claimed: number;
			try {
				await parts.ready();
				if (Date.now() - lastCleanup > CLEANUP_INTERVAL_MS) {
					lastCleanup = Date.now();
					await parts.cleanup();
				}
				claimAgain = false;
				claimed = await dispatcher.claimAndSend(free);
				if (outage) logger.warn('outbox: the database answers again; deliveries resume.');
				outage = false;
			} catch (err) {
				if (!isDatabaseUnavailable(err)) logger.error(`outbox: could not claim deliveries: ${messageOf(err)}`);
				else if (!outage) logger.warn('outbox: the database is unreachable; deliveries wait for it.');
				outage ||= isDatabaseUnavailable(err);
				await poll.wait(options.pollMs);
				continue;
			}
			if (claimed < free && !stopped && !claimAgain) await poll.wait(options.pollMs);
		}
	}

	// Nothing in the loop is meant to throw (each step catches its own); should anything still, the loop
	// says so and starts again after a poll rather than stop delivering (or end the process: issue 54).
	async function supervised() {
		while (!stopped) {
			try {
				await loop();
			} catch (err) {
				logger.error(`outbox: the delivery loop failed (${messageOf(err)}); it starts again.`);
				await poll.wait(options.pollMs);
			}
		}
	}

	const running = supervised();
	return {
		async stop() {
			stopped = true;
			poll.wake();
			await running;
			await dispatcher.finish();
			await closeChannels(channels);
		}
	};
}

const CLEANUP_INTERVAL_MS = 10 * 60 * 1000;
