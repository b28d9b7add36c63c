import type { DeliveryChannel } from '../db/schema';
import type { AttemptResult, ClaimedDelivery } from './store';

export type { DeliveryChannel } from '../db/schema';

/**
 * Where some of a channel's rows wait to be claimed: a webhook URL's rows (by `url_hash`), or a channel's
 * one queue, whose rows carry no URL (push, e-mail: `url_hash` null).
 */
export interface Queue {
	/** The rows' `url_hash`; null for a channel whose rows name no URL. */
	urlHash: string | null;
	/** One message at a time, the oldest due first, paced by the receiver (Discord, Slack: pacer.ts). */
	paced: boolean;
}

/**
 * One way out of the outbox (webhooks, Web Push, e-mail): its rows carry its name in `channel`; the
 * claim loop and the cron run claim its queues' due rows and hand each to `send`, which reads what the
 * row names, sends it once and says what came of it. Retries, leases and records are the outbox's.
 */
export interface Channel {
	readonly name: DeliveryChannel;
	readonly queues: readonly Queue[];
	send(row: ClaimedDelivery): Promise<SendResult>;
	/** Closes its connections; called once, when the worker stops or the run ends. */
	close(): Promise<void>;
}

/** What one attempt got, with the receiver's wishes about the next. */
export type SendResult = Omit<AttemptResult, 'retryInMs'> & {
	/** Retry-After, when the answer was not a success. */
	retryAfterMs: number;
	/** How long the receiver's rate-limit bucket stays empty (X-RateLimit-Remaining: 0), else 0. */
	emptyForMs: number;
};

/** A SendResult with the defaults of an answer that says nothing more (no status, no wishes). */
export const sendResult = (r: Partial<SendResult> & Pick<SendResult, 'delivered'>): SendResult => ({
	status: null,
	error: null,
	final: false,
	retryAfterMs: 0,
	emptyForMs: 0,
	...r
});

/** The queue a row waits in: its URL's for a webhook, its channel's for the others. */
export const queueKey = (row: { channel: DeliveryChannel; urlHash: string | null }) => row.urlHash ?? row.channel;

/** Closes every channel, whatever one of them throws. */
export async function closeChannels(channels: readonly Channel[]): Promise<void> {
	await Promise.allSettled(channels.map((c) => c.close()));
}
