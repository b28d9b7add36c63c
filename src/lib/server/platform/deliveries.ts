import { waitUntil } from '@vercel/functions';
import type { Database, DatabaseHandle } from '../db/client';
import type { Channel } from '../outbox/channel';
import { deliverDue, type DeliveryRunReport } from '../outbox/cron';
import { defaultWorkerOptions, messageOf, type WorkerOptions } from '../outbox/options';
import { startOutboxWorker, type OutboxWorker } from '../outbox/worker';
import { MailSender } from '../notifications/mail-sender';
import { PushSender } from '../notifications/push-sender';
import { toEndpoint } from '../webhooks/endpoints';
import { WebhookSender } from '../webhooks/deliver';
import type { Config } from './config';
import { logger } from './observability';
import type { OutboxTargets } from './outbox-targets';

/**
 * The one assembly of the outbox's channels (src/lib/server/outbox/README.md): which channels this
 * configuration turns on, the rows a change writes for them (`outboxTargets`), and the in-process
 * worker, the cron run and the first attempt after a response that send those rows. `startRuntime`,
 * `hooks.server.ts` and `GET /api/cron/webhooks` call it with the configuration; nothing here is set
 * at start-up and read later.
 */

/** What the channels need of the configuration: WEBHOOK_*, VAPID_*, SMTP_URL and MAIL_FROM, the link secret. */
export type DeliveryConfig = Pick<Config, 'webhooks' | 'notifications' | 'sessionPassword'>;

/** One attempt's limit when no WEBHOOK_TIMEOUT_SECONDS applies (webhooks off, push or e-mail on). */
export const DEFAULT_TIMEOUT_SECONDS = 10;

export const deliveryOptions = (config: DeliveryConfig): WorkerOptions =>
	defaultWorkerOptions(config.webhooks?.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS);

/** Whether any channel is on: WEBHOOK_URLS, the VAPID keys, or SMTP_URL and MAIL_FROM. */
export const anyChannelOn = (config: DeliveryConfig) =>
	config.webhooks !== null || config.notifications.push !== null || config.notifications.mail !== null;

/** The rows a change writes with it under this configuration (platform/outbox-targets.ts); built once, by startRuntime. */
export function outboxTargets(config: DeliveryConfig): OutboxTargets {
	return {
		webhooks: (config.webhooks?.urls ?? []).map(toEndpoint),
		push: config.notifications.push !== null,
		email: config.notifications.mail !== null
	};
}

/** The channels this configuration turns on, each with its own connections (closed by whoever runs them). */
export function deliveryChannels(config: DeliveryConfig, db: () => Database, timeoutMs: number): Channel[] {
	const { webhooks, notifications } = config;
	const channels: Channel[] = [];
	if (webhooks) channels.push(new WebhookSender(webhooks.urls.map(toEndpoint), webhooks.secret, timeoutMs));
	if (notifications.push) channels.push(new PushSender(db, notifications, timeoutMs));
	if (notifications.mail) channels.push(new MailSender(db, notifications, config.sessionPassword, timeoutMs));
	return channels;
}

/**
 * The in-process worker (adapter-node) of every channel that is on, outside every request until
 * stopped; null when none is.
 */
export function startDeliveryWorker(database: DatabaseHandle, config: DeliveryConfig): OutboxWorker | null {
	if (!anyChannelOn(config)) return null;
	const options = deliveryOptions(config);
	return startOutboxWorker(
		database,
		deliveryChannels(config, () => database.db, options.timeoutMs),
		options
	);
}

/**
 * One bounded run for every channel that is on (GET /api/cron/webhooks, every minute on Vercel), within
 * `budgetMs` (by default what the cron function's limit leaves); its channels close with it.
 */
export function deliverDueNow(
	database: DatabaseHandle,
	config: DeliveryConfig,
	budgetMs?: number
): Promise<DeliveryRunReport> {
	const options = deliveryOptions(config);
	return deliverDue(
		database,
		deliveryChannels(config, () => database.db, options.timeoutMs),
		options,
		budgetMs
	);
}

/** A first attempt runs this long at most after the response; the cron run takes what is left. */
const AFTER_RESPONSE_BUDGET_MS = 5_000;

/**
 * On Vercel, the first attempt of the rows a request wrote, right after its response, for as long as
 * the platform keeps the function running for it (`waitUntil`); without it they would wait for the
 * next cron run. Shares the cron run's code, so a row either run claimed is never sent twice.
 */
export function deliverAfterResponse(database: DatabaseHandle, config: DeliveryConfig): void {
	const run = deliverDueNow(database, config, AFTER_RESPONSE_BUDGET_MS).catch((err: unknown) => {
		// The cron run retries whatever this left; the error is only worth a line in the log.
		logger.warn(`outbox: the first attempt after the response failed: ${messageOf(err)}`);
	});
	waitUntil(run);
}
