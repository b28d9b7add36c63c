import { eq, sql } from 'drizzle-orm';
import webpush from 'web-push';
import type { Database } from '../db/client';
import { applications, members, notifications, programs, pushSubscriptions, rounds } from '../db/schema';
import { baseLocale, isLocale, localizedPath } from '$lib/i18n/locales';
import { pushOriginAllowed, type NotificationConfig } from '../platform/notification-config';
import { sendResult as result, type Channel, type Queue, type SendResult } from '../outbox/channel';
import { OriginPools, failedPostInWords, secondsToMs } from '../outbox/http';
import type { ClaimedDelivery } from '../outbox/store';

/** The characters of a body a push message carries (3 bytes each at most, within Web Push's 4 KB). */
const PUSH_BODY_MAX = 1000;

/** Every notification is about the applicant's own application, shown on /apply (in the recipient's locale). */
const APPLICANT_PAGE = '/apply';

/** How long a push service keeps a message for a browser that is offline (RFC 8030 TTL). */
const TTL_SECONDS = 7 * 24 * 60 * 60;

/**
 * Sends one push outbox row (`{ notificationId, subscriptionId }`): the notification, encrypted for the
 * subscription (RFC 8291 aes128gcm) and VAPID-signed (RFC 8292) by `web-push`, posted through an undici
 * pool per push service. 404/410 delete the subscription; other failures are retried like webhooks.
 */
export class PushSender implements Channel {
	readonly name = 'push';
	/** One queue: the rows name no URL (the subscription is read at sending time). */
	readonly queues: readonly Queue[] = [{ urlHash: null, paced: false }];
	private readonly pools: OriginPools;

	constructor(
		private readonly db: () => Database,
		private readonly config: NotificationConfig,
		private readonly timeoutMs: number
	) {
		this.pools = new OriginPools(16, timeoutMs);
	}

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
				locale: members.locale,
				programSlug: programs.slug,
				programName: programs.name,
				roundId: rounds.id,
				roundName: rounds.name
			})
			.from(notifications)
			.innerJoin(pushSubscriptions, eq(pushSubscriptions.id, subscriptionId))
			.leftJoin(members, eq(members.address, notifications.recipientAddress))
			.leftJoin(applications, eq(applications.id, notifications.applicationId))
			.leftJoin(programs, eq(programs.id, applications.programId))
			.leftJoin(rounds, eq(rounds.id, applications.roundId))
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
		// About an application: its programme and round, as webhooks name them (docs/notifications.md).
		const place =
			found.programSlug !== null && found.roundId !== null
				? {
						program: { slug: found.programSlug, name: found.programName },
						round: { id: found.roundId, name: found.roundName }
					}
				: {};
		const payload = JSON.stringify({ title: found.title, body, url, ...place });
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
		let header: (name: string) => string | undefined;
		try {
			({ status, header } = await this.pools.post(endpoint, request.headers, request.body));
		} catch (err) {
			await this.failed(db, subscriptionId);
			return result({ delivered: false, error: failedPostInWords(err, this.timeoutMs) });
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
		return result({
			delivered: false,
			status,
			// A refusal of the message itself (too large, bad request) does not change on retry.
			final: status === 400 || status === 413,
			error: `HTTP ${status}`,
			retryAfterMs: secondsToMs(header('retry-after'))
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

	close(): Promise<void> {
		return this.pools.close();
	}
}
