import { waitUntil } from '@vercel/functions';
import type { DatabaseHandle } from '../db/client';
import type { WebhookConfig } from '../platform/config';
import { claimBudgetMs, runDueDeliveries, type DeliveryRunReport } from './cron';
import { Sender } from './deliver';
import { databaseStore } from './dispatch';
import { channelEndpoints, routingSender, type ChannelSenders } from './channels';
import type { WebhookEndpoint } from './endpoints';
import { messageOf, defaultWorkerOptions } from './options';
import { deleteSettled } from './outbox';
import { logger } from '../platform/observability';

/** What deliverDueWebhooks needs of the runtime. */
export interface ScheduledDelivery {
	database: DatabaseHandle;
	endpoints: readonly WebhookEndpoint[];
	/** Null when WEBHOOK_URLS is unset: a run does nothing. */
	webhooks: WebhookConfig | null;
	/** The applicants' channels that are on (made per run: their connections close with it). */
	channels?: () => ChannelSenders;
}

/** One attempt's limit for the applicants' channels when no WEBHOOK_TIMEOUT_SECONDS applies. */
export const DEFAULT_TIMEOUT_SECONDS = 10;

const NOTHING_DONE: DeliveryRunReport = {
	claimed: 0,
	attempted: 0,
	delivered: 0,
	notDelivered: 0,
	budgetSpent: false,
	durationMs: 0
};

/**
 * Delivery without a long-running process (GET /api/cron/webhooks, every minute on Vercel): one run of
 * the worker's claim/send/record code within `budgetMs`, after deleting settled rows past their keeping time.
 */
export async function deliverDueWebhooks(
	{ database, endpoints, webhooks, channels: makeChannels }: ScheduledDelivery,
	budgetMs?: number
): Promise<DeliveryRunReport> {
	const channels = makeChannels?.() ?? {};
	if (!webhooks && Object.keys(channels).length === 0) return NOTHING_DONE;
	const options = defaultWorkerOptions(webhooks?.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS);
	const sender = routingSender(webhooks ? new Sender(webhooks.secret, options.timeoutMs) : null, channels);
	const all = [...endpoints, ...channelEndpoints(channels)];
	try {
		await database.ready();
		await deleteSettled(database.db, options.keepMs);
		const budget = budgetMs ?? claimBudgetMs(options.timeoutMs);
		return await runDueDeliveries(() => databaseStore(database.db), all, sender, options, budget);
	} finally {
		await sender.close();
	}
}

/** A first attempt runs this long at most after the response; the cron run takes what is left. */
const AFTER_RESPONSE_BUDGET_MS = 5_000;

/**
 * On Vercel, the first attempt of the events a request wrote, right after its response, for as long
 * as the platform keeps the function running for it (`waitUntil`); without it they would wait for the
 * next cron run. Shares the cron run's code, so a row either run claimed is never sent twice.
 */
export function deliverAfterResponse(delivery: ScheduledDelivery): void {
	const run = deliverDueWebhooks(delivery, AFTER_RESPONSE_BUDGET_MS).catch((err: unknown) => {
		// The cron run retries whatever this left; the error is only worth a line in the log.
		logger.warn(`webhooks: the first attempt after the response failed: ${messageOf(err)}`);
	});
	waitUntil(run);
}
