import { Webhook } from 'standardwebhooks';
import { Pool } from 'undici';
import type { WebhookEndpoint } from './endpoints';
import { requestBody } from './messages';
import type { AttemptResult, ClaimedDelivery } from './outbox';

/**
 * Posts signed attempts through undici's connection pools, one per receiver origin (keep-alive, up to
 * 64 sockets each): about a third of node:http's CPU per request, and a tenth of fetch's, on the two
 * cores the worker shares with the requests it must not slow.
 */
export class Sender {
	private readonly signer: Webhook;
	private readonly pools = new Map<string, Pool>();

	constructor(
		secret: string,
		private readonly timeoutMs: number
	) {
		this.signer = new Webhook(secret);
	}

	/**
	 * One attempt: the body for the endpoint's format, signed as Standard Webhooks says (webhook-id,
	 * webhook-timestamp of this attempt, webhook-signature), within the timeout. Redirects are not followed.
	 */
	async send(endpoint: WebhookEndpoint, row: ClaimedDelivery): Promise<SendResult> {
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
			const { status, header } = await this.post(endpoint.url, headers, body);
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
				error: describe(err, this.timeoutMs),
				final: false,
				retryAfterMs: 0,
				emptyForMs: 0
			};
		}
	}

	/** Redirects are not followed (a pool never does), and the answer's body is read no further than undici's dump limit. */
	private async post(url: string, headers: Record<string, string>, body: string) {
		const target = new URL(url);
		let pool = this.pools.get(target.origin);
		if (!pool) this.pools.set(target.origin, (pool = new Pool(target.origin, { connections: 64 })));
		const abort = new AbortController();
		const timer = setTimeout(() => abort.abort(new AttemptTimeout()), this.timeoutMs);
		try {
			const response = await pool.request({
				method: 'POST',
				path: target.pathname + target.search,
				headers,
				body,
				signal: abort.signal
			});
			await response.body.dump();
			const header = (name: string) => {
				const value = response.headers[name];
				return Array.isArray(value) ? value[0] : value;
			};
			return { status: response.statusCode, header };
		} catch (err) {
			throw abort.signal.aborted ? new AttemptTimeout() : err;
		} finally {
			clearTimeout(timer);
		}
	}

	close(): Promise<void> {
		const closing = [...this.pools.values()].map((pool) => pool.destroy());
		this.pools.clear();
		return Promise.all(closing).then(() => {});
	}
}

/** What one attempt got, with the receiver's wishes about the next. */
export type SendResult = Omit<AttemptResult, 'retryInMs'> & {
	/** Retry-After, when the answer was not a success. */
	retryAfterMs: number;
	/** How long the receiver's rate-limit bucket stays empty (X-RateLimit-Remaining: 0), else 0. */
	emptyForMs: number;
};

/** A header's seconds (Retry-After, X-RateLimit-Reset-After) in ms; 0 when absent or unreadable. */
function secondsToMs(value: string | undefined): number {
	const seconds = Number(value);
	return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 0;
}

class AttemptTimeout extends Error {}

// The error code only: messages of network errors can name the URL, whose path may be a token.
function describe(err: unknown, timeoutMs: number): string {
	if (err instanceof AttemptTimeout) return `no answer within ${timeoutMs / 1000} s`;
	const code = (err as { code?: unknown }).code;
	return `could not connect (${typeof code === 'string' ? code : 'network error'})`;
}
