import { Webhook } from 'standardwebhooks';
import type { Channel, Queue, SendResult } from '../outbox/channel';
import { OriginPools, failedPostInWords, secondsToMs } from '../outbox/http';
import type { ClaimedDelivery } from '../outbox/store';
import { isChat, type WebhookEndpoint } from './endpoints';
import { requestBody } from './request-body';

/**
 * The webhooks as an outbox channel: one queue per WEBHOOK_URLS entry (by the URL's hash; Discord and
 * Slack paced, one message at a time), each row posted signed through undici's connection pools (up to
 * 64 sockets per receiver origin).
 */
export class WebhookSender implements Channel {
	readonly name = 'webhook';
	readonly queues: readonly Queue[];
	private readonly byHash: Map<string, WebhookEndpoint>;
	private readonly signer: Webhook;
	private readonly pools: OriginPools;

	constructor(
		endpoints: readonly WebhookEndpoint[],
		secret: string,
		private readonly timeoutMs: number
	) {
		this.byHash = new Map(endpoints.map((e) => [e.hash, e]));
		this.queues = endpoints.map((e) => ({ urlHash: e.hash, paced: isChat(e) }));
		this.signer = new Webhook(secret);
		this.pools = new OriginPools(64, timeoutMs);
	}

	/** One attempt of a row, to the endpoint its `url_hash` names. */
	send(row: ClaimedDelivery): Promise<SendResult> {
		const endpoint = row.urlHash === null ? undefined : this.byHash.get(row.urlHash);
		if (!endpoint) throw new Error('no WEBHOOK_URLS entry for the row');
		return this.sendTo(endpoint, row);
	}

	/**
	 * One attempt: the body for the endpoint's format, signed as Standard Webhooks says (webhook-id,
	 * webhook-timestamp of this attempt, webhook-signature), within the timeout. Redirects are not followed.
	 */
	async sendTo(endpoint: WebhookEndpoint, row: ClaimedDelivery): Promise<SendResult> {
		const body = requestBody(endpoint.format, row);
		const now = new Date();
		const headers = {
			'content-type': 'application/json',
			'content-length': String(Buffer.byteLength(body)),
			'user-agent': 'member-portal-webhooks/1',
			'webhook-id': row.eventId,
			'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
			'webhook-signature': this.signer.sign(row.eventId, now, body)
		};
		try {
			const { status, header } = await this.pools.post(new URL(endpoint.url), headers, body);
			// Discord's bucket: how many more requests it takes now, and when it fills again.
			const emptyForMs = header('x-ratelimit-remaining') === '0' ? secondsToMs(header('x-ratelimit-reset-after')) : 0;
			if (status >= 200 && status < 300)
				return { delivered: true, status, error: null, final: false, retryAfterMs: 0, emptyForMs };
			return {
				delivered: false,
				status,
				error: status === 410 ? 'HTTP 410 Gone: not retried' : `HTTP ${status}`,
				final: status === 410,
				retryAfterMs: secondsToMs(header('retry-after')),
				emptyForMs
			};
		} catch (err) {
			return {
				delivered: false,
				status: null,
				error: failedPostInWords(err, this.timeoutMs),
				final: false,
				retryAfterMs: 0,
				emptyForMs: 0
			};
		}
	}

	close(): Promise<void> {
		return this.pools.close();
	}
}
