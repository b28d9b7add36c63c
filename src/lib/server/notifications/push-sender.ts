import { eq, sql } from 'drizzle-orm';
import { Pool } from 'undici';
import webpush from 'web-push';
import type { Database } from '../db/client';
import { members, notifications, pushSubscriptions } from '../db/schema';
import { baseLocale, isLocale, localizedPath } from '$lib/i18n/locales';
import { pushOriginAllowed, type NotificationConfig } from '../platform/notification-config';
import type { ChannelSender } from '../webhooks/channels';
import type { SendResult } from '../webhooks/deliver';
import type { ClaimedDelivery } from '../webhooks/outbox';

/** The characters of a body a push message carries (3 bytes each at most, within Web Push's 4 KB). */
const PUSH_BODY_MAX = 1000;

/** Every notification is about the applicant's own application, shown on /apply (in the recipient's locale). */
const APPLICANT_PAGE = '/apply';

/** How long a push service keeps a message for a browser that is offline (RFC 8030 TTL). */
const TTL_SECONDS = 7 * 24 * 60 * 60;

const result = (r: Partial<SendResult> & Pick<SendResult, 'delivered'>): SendResult => ({
	status: null,
	error: null,
	final: false,
	retryAfterMs: 0,
	emptyForMs: 0,
	...r
});

/**
 * Sends one push outbox row (`{ notificationId, subscriptionId }`): the notification, encrypted for the
 * subscription (RFC 8291 aes128gcm) and VAPID-signed (RFC 8292) by `web-push`, posted through an undici
 * pool per push service. 404/410 delete the subscription; other failures are retried like webhooks.
 */
export class PushSender implements ChannelSender {
	private readonly pools = new Map<string, Pool>();

	constructor(
		private readonly db: () => Database,
		private readonly config: NotificationConfig,
		private readonly timeoutMs: number
	) {}

	async send(row: ClaimedDelivery): Promise<SendResult> {
		const vapid = this.config.push;
		if (!vapid) return result({ delivered: false, final: true, error: 'push is off (no VAPID keys)' });
		const db = this.db();
		const { notificationId, subscriptionId } = row.data as { notificationId: number; subscriptionId: number };
		const [found] = await db
			.select({
				title: notifications.title,
				body: notifications.body,
				sub: pushSubscriptions,
				locale: members.locale
			})
			.from(notifications)
			.innerJoin(pushSubscriptions, eq(pushSubscriptions.id, subscriptionId))
			.leftJoin(members, eq(members.address, notifications.recipientAddress))
			.where(eq(notifications.id, notificationId));
		if (!found) return result({ delivered: false, final: true, error: 'not sent: the subscription was removed' });
		const endpoint = new URL(found.sub.endpoint);
		// PUSH_SERVICE_ORIGINS may have narrowed since the browser subscribed: nothing else is reached.
		if (!pushOriginAllowed(endpoint, this.config.pushServiceOrigins)) {
			await this.forget(db, subscriptionId);
			return result({ delivered: false, final: true, error: 'not sent: the push service is no longer allowed' });
		}
		// A push message holds at most about 4 KB: a long body (many asks) is cut; the inbox has it whole.
		const body = found.body.length > PUSH_BODY_MAX ? `${found.body.slice(0, PUSH_BODY_MAX - 1)}…` : found.body;
		// The title and body were written in the recipient's language; the page opens in it too (/es/apply).
		const url = localizedPath(APPLICANT_PAGE, isLocale(found.locale) ? found.locale : baseLocale);
		const payload = JSON.stringify({ title: found.title, body, url });
		const request = webpush.generateRequestDetails(
			{ endpoint: endpoint.href, keys: { p256dh: found.sub.p256dh, auth: found.sub.auth } },
			payload,
			{
				vapidDetails: vapid,
				TTL: TTL_SECONDS,
				contentEncoding: 'aes128gcm',
				// A message sent again after a lost record replaces the first while the browser has not received it.
				topic: `n${notificationId}`
			}
		);
		let status: number;
		let retryAfter: string | undefined;
		try {
			({ status, retryAfter } = await this.post(endpoint, request.headers, request.body));
		} catch (err) {
			await this.failed(db, subscriptionId);
			return result({ delivered: false, error: describe(err, this.timeoutMs) });
		}
		if (status >= 200 && status < 300) {
			await db
				.update(pushSubscriptions)
				.set({ lastSuccessAt: sql`now()`, failures: 0 })
				.where(eq(pushSubscriptions.id, subscriptionId));
			return result({ delivered: true, status });
		}
		if (status === 404 || status === 410) {
			await this.forget(db, subscriptionId);
			return result({
				delivered: false,
				status,
				final: true,
				error: `HTTP ${status}: the subscription is gone; removed`
			});
		}
		await this.failed(db, subscriptionId);
		const seconds = Number(retryAfter);
		return result({
			delivered: false,
			status,
			// A refusal of the message itself (too large, bad request) does not change on retry.
			final: status === 400 || status === 413,
			error: `HTTP ${status}`,
			retryAfterMs: Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 0
		});
	}

	private forget(db: Database, id: number) {
		return db.delete(pushSubscriptions).where(eq(pushSubscriptions.id, id));
	}

	private failed(db: Database, id: number) {
		return db
			.update(pushSubscriptions)
			.set({ failures: sql`${pushSubscriptions.failures} + 1` })
			.where(eq(pushSubscriptions.id, id));
	}

	/** Redirects are not followed (a pool never does); the answer's body is not read. */
	private async post(target: URL, headers: Record<string, string>, body: Buffer) {
		let pool = this.pools.get(target.origin);
		if (!pool) this.pools.set(target.origin, (pool = new Pool(target.origin, { connections: 16 })));
		const abort = new AbortController();
		const timer = setTimeout(() => abort.abort(), this.timeoutMs);
		try {
			const response = await pool.request({
				method: 'POST',
				path: target.pathname + target.search,
				headers,
				body,
				signal: abort.signal
			});
			await response.body.dump();
			const value = response.headers['retry-after'];
			return { status: response.statusCode, retryAfter: Array.isArray(value) ? value[0] : value };
		} finally {
			clearTimeout(timer);
		}
	}

	async close(): Promise<void> {
		const closing = [...this.pools.values()].map((pool) => pool.destroy());
		this.pools.clear();
		await Promise.all(closing);
	}
}

// The error code only: a network error's message can name the endpoint, whose path identifies the browser.
function describe(err: unknown, timeoutMs: number): string {
	if ((err as { name?: string }).name === 'AbortError') return `no answer within ${timeoutMs / 1000} s`;
	const code = (err as { code?: unknown }).code;
	return `could not connect (${typeof code === 'string' ? code : 'network error'})`;
}
