import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { lastBackup } from '../db/backups';

/**
 * The process's Prometheus metrics (docs/observability.md). Labels are bounded sets (route ids,
 * status classes, outcome codes, action names): never an address, cookie, signature or secret.
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

export const requestDuration = new Histogram({
	name: 'http_request_duration_seconds',
	help: 'Time from the request reaching the portal to its answer, by route id and status class',
	labelNames: ['method', 'route', 'status_class'] as const,
	buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
	registers: [registry]
});

export const signIns = new Counter({
	name: 'sign_ins_total',
	help: 'Answers of POST /api/auth/verify by outcome: ok, or the failure code',
	labelNames: ['outcome'] as const,
	registers: [registry]
});

export const rateLimitRefusals = new Counter({
	name: 'rate_limit_refusals_total',
	help: 'Calls refused by the per-address limits, by action',
	labelNames: ['action'] as const,
	registers: [registry]
});

export const webhookPending = new Gauge({
	name: 'webhook_deliveries_pending',
	help: 'Webhook deliveries waiting to be sent (the outbox backlog)',
	registers: [registry]
});

export const webhookOldestPendingAge = new Gauge({
	name: 'webhook_deliveries_oldest_pending_age_seconds',
	help: 'Age of the oldest webhook delivery still waiting; 0 when none waits',
	registers: [registry]
});

export const webhookFailed = new Gauge({
	name: 'webhook_deliveries_failed',
	help: 'Webhook deliveries that gave up (an admin may retry them)',
	registers: [registry]
});

export const webhookBacklogReadable = new Gauge({
	name: 'webhook_backlog_readable',
	help: '1 when the last scrape could read the webhook outbox, 0 when the database did not answer',
	registers: [registry]
});

export const lastBackupTimestamp = new Gauge({
	name: 'portal_last_backup_timestamp_seconds',
	help: 'When the newest daily backup was taken (Unix time); 0 while there is none',
	registers: [registry],
	collect() {
		this.set((lastBackup()?.getTime() ?? 0) / 1000);
	}
});

/** Only the `status` class goes into a label: 2xx, 3xx, 4xx, 5xx. */
export const statusClass = (status: number) => `${Math.trunc(status / 100)}xx`;
