import type { DatabaseHandle } from '../db/client';
import {
	registry,
	webhookBacklogReadable,
	webhookFailed,
	webhookOldestPendingAge,
	webhookPending
} from '../platform/metrics';
import { outboxBacklog } from '../outbox/backlog';

/**
 * The Prometheus text exposition of this process, with the webhook outbox read at scrape time. A
 * database that does not answer leaves the last numbers and says so (webhook_backlog_readable 0)
 * rather than failing the scrape: the request metrics matter most during an outage.
 */
export async function scrapeMetrics(database: DatabaseHandle): Promise<{ body: string; contentType: string }> {
	try {
		await database.ready();
		const backlog = await outboxBacklog(database.db);
		webhookPending.set(backlog.pending);
		webhookOldestPendingAge.set(backlog.oldestPendingAgeSeconds);
		webhookFailed.set(backlog.failed);
		webhookBacklogReadable.set(1);
	} catch {
		webhookBacklogReadable.set(0);
	}
	return { body: await registry.metrics(), contentType: registry.contentType };
}
