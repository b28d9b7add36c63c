// The outbox targets a test's change writes with it (src/lib/server/platform/outbox-targets.ts), built
// here as startRuntime builds them from the configuration; routes pass runtime().outbox.
import type { OutboxTargets } from '../../src/lib/server/platform/outbox-targets';
import { toEndpoint } from '../../src/lib/server/webhooks/endpoints';

/** No WEBHOOK_URLS, VAPID keys or SMTP_URL: a change writes no outbox row. */
export const OUTBOX_OFF: OutboxTargets = { webhooks: [], push: false, email: false };

/** Webhook rows for each of `urls`, as WEBHOOK_URLS lists them; push and e-mail off. */
export const webhooksTo = (...urls: string[]): OutboxTargets => ({ ...OUTBOX_OFF, webhooks: urls.map(toEndpoint) });
