import type { Database } from '../db/client';
import { queueKey, type Channel, type SendResult } from './channel';
import { backoffMs, type WorkerOptions } from './options';
import {
	claimDue,
	claimHeads,
	recordAttempts,
	type ClaimedDelivery,
	type DueQueues,
	type RecordedAttempt
} from './store';
import { ChatPacer } from './pacer';
import { RecordBatcher } from './recorder';
import { logger } from '../platform/observability';

/** Where claims and records go: the outbox (databaseStore), or a stand-in in unit tests. */
export interface DeliveryStore {
	claimHeads(hashes: readonly string[], leaseMs: number): Promise<ClaimedDelivery[]>;
	claimDue(queues: DueQueues, limit: number, leaseMs: number): Promise<ClaimedDelivery[]>;
	recordAttempts(batch: readonly RecordedAttempt[], retryWindowMs: number): Promise<number>;
}

export const databaseStore = (db: Database): DeliveryStore => ({
	claimHeads: (hashes, leaseMs) => claimHeads(db, hashes, leaseMs),
	claimDue: (queues, limit, leaseMs) => claimDue(db, queues, limit, leaseMs),
	recordAttempts: (batch, retryWindowMs) => recordAttempts(db, batch, retryWindowMs)
});

/** What a dispatcher has done so far. */
export interface DispatchCounts {
	attempted: number;
	delivered: number;
	/** Attempts that did not deliver (the row is tried again later, or failed for good). */
	notDelivered: number;
}

/**
 * The claim/send/record code that the in-process worker and the cron run share: claims due rows
 * (a lease and an attempt number that no other claim gets, so no attempt is sent twice) of every
 * channel's queues, hands each to its channel, paces the paced queues and hands the results to the
 * record batcher.
 */
export class Dispatcher {
	readonly inFlight = new Set<Promise<void>>();
	readonly counts: DispatchCounts = { attempted: 0, delivered: 0, notDelivered: 0 };
	/** Each queue's channel, by queueKey. */
	private readonly byQueue = new Map<string, Channel>();
	private readonly paced = new Set<string>();
	private readonly due: DueQueues;
	private readonly pacer: ChatPacer;
	private readonly recorder: RecordBatcher;

	constructor(
		private readonly store: () => DeliveryStore,
		channels: readonly Channel[],
		private readonly options: WorkerOptions,
		onFree: () => void
	) {
		const hashes: string[] = [];
		const unpaced: Channel['name'][] = [];
		for (const channel of channels)
			for (const queue of channel.queues) {
				const key = queueKey({ channel: channel.name, urlHash: queue.urlHash });
				this.byQueue.set(key, channel);
				// A paced queue is claimed by its head (claimHeads), which names a URL's rows.
				if (queue.paced && queue.urlHash !== null) this.paced.add(key);
				else if (queue.urlHash !== null) hashes.push(queue.urlHash);
				else unpaced.push(channel.name);
			}
		this.due = { hashes, channels: unpaced };
		this.pacer = new ChatPacer([...this.paced], onFree);
		this.recorder = new RecordBatcher(
			(batch) => this.store().recordAttempts(batch, options.retryWindowMs),
			options.recordDelayMs,
			options.concurrency
		);
	}

	/** Claims up to `free` due rows and starts their attempts; returns how many it claimed. */
	async claimAndSend(free: number): Promise<number> {
		const rows = await this.claimFor(free);
		for (const row of rows) {
			// attempt() records whatever its sender does; this catch is the last word, so no attempt ever
			// becomes an unhandled rejection (which would end the process: issue 54).
			const p: Promise<void> = this.attempt(row)
				.catch((err: unknown) => logger.error(`deliveries: an attempt of row ${row.id} failed: ${thrownAs(err)}`))
				.finally(() => this.inFlight.delete(p));
			this.inFlight.add(p);
		}
		return rows.length;
	}

	/** Whether work may still come back to claim soon: attempts in flight, records pending, a channel pausing briefly. */
	busyWithin(ms: number): boolean {
		return this.inFlight.size > 0 || !this.recorder.idle || this.pacer.busyWithin(ms);
	}

	/** Stops pacing timers, waits for the attempts in flight and records them all. */
	async finish(): Promise<void> {
		this.pacer.stop();
		await Promise.allSettled([...this.inFlight]);
		await this.recorder.flush();
	}

	/**
	 * Up to `free` due rows: first the oldest of each chat endpoint free to take one (a row each, so a
	 * backlog elsewhere never holds a channel up), then the other endpoints' by due time.
	 */
	private async claimFor(free: number): Promise<ClaimedDelivery[]> {
		const store = this.store();
		const ready = this.pacer.ready(free);
		const heads = ready.length > 0 ? await store.claimHeads(ready, this.options.leaseMs) : [];
		for (const row of heads) this.pacer.take(queueKey(row));
		const left = free - heads.length;
		if ((this.due.hashes.length === 0 && this.due.channels.length === 0) || left <= 0) return heads;
		try {
			return [...heads, ...(await store.claimDue(this.due, left, this.options.leaseMs))];
		} catch (err) {
			// The heads are claimed and marked sending: they must be sent. The error comes back on the next
			// claim, which their endpoints, busy now, leave to the other one alone.
			if (heads.length === 0) throw err;
			return heads;
		}
	}

	private async attempt(row: ClaimedDelivery) {
		const o = this.options;
		const key = queueKey(row);
		const result = await this.sendCaught(this.byQueue.get(key)!, row);
		this.counts.attempted++;
		this.counts[result.delivered ? 'delivered' : 'notDelivered']++;
		// Past the retry window the row fails anyway; a longer Retry-After would only overflow the timestamp.
		let retryInMs = Math.min(o.retryWindowMs, Math.max(backoffMs(row.attempts, o), result.retryAfterMs));
		let after: ((recorded: boolean) => void) | undefined;
		if (this.paced.has(key)) {
			// Rate limited: the message waits exactly as long as its endpoint (1 s to an hour), so it is still
			// the oldest due when both may go again, and the channel gets the messages in order.
			if (result.status === 429) retryInMs = clamp(result.retryAfterMs || retryInMs, MIN_PAUSE_MS, MAX_PAUSE_MS);
			const pauseMs = Math.min(MAX_PAUSE_MS, Math.max(result.emptyForMs, result.status === 429 ? retryInMs : 0));
			// A message to be sent again is due from when its attempt is recorded; unrecorded, when its lease ends.
			const release = (recorded = true) => this.pacer.release(key, recorded ? pauseMs : Math.max(pauseMs, o.leaseMs));
			if (result.delivered || result.final) release();
			else after = release;
		}
		this.recorder.add({ ...result, retryInMs, id: row.id, attempts: row.attempts }, after);
	}

	/**
	 * The sender's answer, or, when it throws (a row it cannot send: keys no library takes, data it cannot
	 * read), a failed attempt that says so: recorded and retried like any other, and set aside once it has
	 * thrown the same way `setAsideAfter` times (recordAttempts). Never a crash.
	 */
	private async sendCaught(channel: Channel, row: ClaimedDelivery): Promise<SendResult & { threw?: boolean }> {
		try {
			return await channel.send(row);
		} catch (err) {
			const error = `the sender failed (${thrownAs(err)})`;
			logger.warn(`deliveries: row ${row.id} (${channel.name}), attempt ${row.attempts}: ${error}`);
			return { delivered: false, status: null, error, final: false, retryAfterMs: 0, emptyForMs: 0, threw: true };
		}
	}
}

/**
 * What a throw was, by its code or class only: its message may carry what it was given (an endpoint, a
 * key, an address), which neither the log nor /admin/webhooks shows.
 */
export function thrownAs(err: unknown): string {
	const code = (err as { code?: unknown } | null)?.code;
	if (typeof code === 'string' && /^[\w.-]{1,64}$/.test(code)) return code;
	const name = err instanceof Error ? err.constructor.name || err.name : typeof err;
	return /^[\w.-]{1,64}$/.test(name) ? name : 'Error';
}

/** How long a chat endpoint waits on its own word (an empty bucket, a 429's Retry-After), at most and at least after a 429. */
const MAX_PAUSE_MS = 60 * 60 * 1000;
const MIN_PAUSE_MS = 1000;

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));
