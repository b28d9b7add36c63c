/**
 * Which outbox rows a change writes with it: one per WEBHOOK_URLS entry for each webhook event, and the
 * applicant's push and e-mail notifications when those channels are on. Built once from the
 * configuration (`outboxTargets` in deliveries.ts, beside the senders of the same channels), held by
 * the runtime, and passed by the route to each operation that records a change; nothing sets it.
 */
export interface OutboxTargets {
	/** Each WEBHOOK_URLS entry as its rows name it (the URL's hash and host); none when webhooks are off. */
	webhooks: readonly { hash: string; host: string }[];
	/** VAPID keys are set: a notification writes a row per push subscription of its recipient. */
	push: boolean;
	/** SMTP_URL and MAIL_FROM are set: a notification writes a row for its recipient's verified address. */
	email: boolean;
}
