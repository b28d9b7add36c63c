import type { DatabaseHandle } from '../db/client';
import { faultForLog, isDatabaseUnavailable } from '../db/errors';
import { Sender } from './deliver';
import { isChat, type WebhookEndpoint } from './endpoints';
import {
	claimDue,
	claimHeads,
	deleteSettled,
	recordAttempts,
	type ClaimedDelivery,
	type RecordedAttempt
} from './outbox';

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
	const standard = endpoints.filter((e) => !isChat(e)).map((e) => e.hash);
	const chat = endpoints.filter(isChat).map((e) => e.hash);
	// A chat endpoint takes one message at a time, the oldest due first: those sending now, and until
	// when each waits on its own word (an empty rate-limit bucket, a 429's Retry-After).
	const sending = new Set<string>();
	const pausedUntil = new Map<string, number>();
	const pauses = new Set<NodeJS.Timeout>();
	// A chat message to be sent again holds its endpoint until its attempt is recorded: only then is it due
	// again (still the oldest), and the endpoint's pause counts from then. By delivery id.
	const afterRecord = new Map<number, (recorded: boolean) => void>();
	const sender = new Sender(secret, options.timeoutMs);
	const inFlight = new Set<Promise<void>>();
	const results: RecordedAttempt[] = [];
	let recording: Promise<void> | null = null;
	let stopped = false;
	let outage = false;
	let lastCleanup = 0;

	const poll = wakeableDelay();
	const gather = wakeableDelay();
	// Set when a chat endpoint may take its next message: the loop claims again at once, not after a poll.
	let claimAgain = false;
	const wakeLoop = () => {
		claimAgain = true;
		poll.wake();
	};

	// Results are recorded together: one statement for whatever finished within `recordDelayMs` of the
	// first (or sooner, once a claim's worth has finished), then for whatever finished while it ran.
	async function recordAll() {
		if (!stopped) await gather.wait(options.recordDelayMs);
		while (results.length > 0) {
			const batch = results.splice(0);
			let recorded = false;
			try {
				await recordAttempts(database.db, batch, options.retryWindowMs);
				recorded = true;
			} catch (err) {
				// Unrecorded rows are claimed again when their lease ends: at least once, same webhook-id.
				if (!isDatabaseUnavailable(err)) console.error('webhooks: could not record attempts:', messageOf(err));
			} finally {
				for (const { id } of batch) {
					afterRecord.get(id)?.(recorded);
					afterRecord.delete(id);
				}
			}
		}
		recording = null;
	}

	async function attempt(row: ClaimedDelivery) {
		const endpoint = byHash.get(row.urlHash)!;
		const result = await sender.send(endpoint, row);
		// Past the retry window the row fails anyway; a longer Retry-After would only overflow the timestamp.
		let retryInMs = Math.min(options.retryWindowMs, Math.max(backoffMs(row.attempts, options), result.retryAfterMs));
		if (isChat(endpoint)) {
			// Rate limited: the message waits exactly as long as its endpoint (1 s to an hour), so it is still
			// the oldest due when both may go again, and the channel gets the messages in order.
			if (result.status === 429) retryInMs = clamp(result.retryAfterMs || retryInMs, MIN_PAUSE_MS, MAX_PAUSE_MS);
			const pauseMs = Math.min(MAX_PAUSE_MS, Math.max(result.emptyForMs, result.status === 429 ? retryInMs : 0));
			// A message to be sent again is due from when its attempt is recorded; unrecorded, when its lease ends.
			const release = (recorded = true) => {
				sending.delete(row.urlHash);
				const waitMs = recorded ? pauseMs : Math.max(pauseMs, options.leaseMs);
				if (waitMs > 0) pause(row.urlHash, waitMs);
				else wakeLoop();
			};
			if (result.delivered || result.final) release();
			else afterRecord.set(row.id, release);
		}
		results.push({ ...result, retryInMs, id: row.id, attempts: row.attempts });
		recording ??= recordAll();
		if (results.length >= options.concurrency) gather.wake();
	}

	function pause(hash: string, ms: number) {
		pausedUntil.set(hash, Date.now() + ms);
		// Attempts that finish while stop() waits for them start no pause; none keeps the process alive.
		if (stopped) return;
		// The timer decides when the pause ends (it may fire a little before Date.now() gets there).
		const timer = setTimeout(() => {
			pauses.delete(timer);
			pausedUntil.delete(hash);
			wakeLoop();
		}, ms);
		timer.unref();
		pauses.add(timer);
	}

	/**
	 * Up to `free` due rows: first the oldest of each chat endpoint free to take one (a row each, so a
	 * backlog elsewhere never holds a channel up), then the other endpoints' by due time.
	 */
	async function claimFor(free: number): Promise<ClaimedDelivery[]> {
		const now = Date.now();
		const ready = chat.filter((h) => !sending.has(h) && (pausedUntil.get(h) ?? 0) <= now).slice(0, free);
		const heads = ready.length > 0 ? await claimHeads(database.db, ready, options.leaseMs) : [];
		for (const row of heads) sending.add(row.urlHash);
		const left = free - heads.length;
		if (standard.length === 0 || left <= 0) return heads;
		try {
			return [...heads, ...(await claimDue(database.db, standard, left, options.leaseMs))];
		} catch (err) {
			// The heads are claimed and marked sending: they must be sent. The error comes back on the next
			// claim, which their endpoints, busy now, leave to the other one alone.
			if (heads.length === 0) throw err;
			return heads;
		}
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
				claimAgain = false;
				rows = await claimFor(free);
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
			if (rows.length < free && !stopped && !claimAgain) await poll.wait(options.pollMs);
		}
	}

	const running = loop();
	return {
		async stop() {
			stopped = true;
			for (const timer of pauses) clearTimeout(timer);
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
/** How long a chat endpoint waits on its own word (an empty bucket, a 429's Retry-After), at most and at least after a 429. */
const MAX_PAUSE_MS = 60 * 60 * 1000;
const MIN_PAUSE_MS = 1000;

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

// The fault without its stack: for a failed query its SQL and reason, never the parameters.
const messageOf = (err: unknown) =>
	faultForLog(err)
		.split('\n')
		.filter((line) => !/^\s+at /.test(line))
		.join('\n');
