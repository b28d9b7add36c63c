import http from 'node:http';
import https from 'node:https';
import { Webhook } from 'standardwebhooks';
import type { WebhookEndpoint } from './endpoints';
import { requestBody } from './messages';
import type { AttemptResult, ClaimedDelivery } from './outbox';

/** Posts signed attempts. node:http rather than fetch: about a third of the CPU per request. */
export class Sender {
	private readonly signer: Webhook;
	private readonly agents = {
		'http:': new http.Agent({ keepAlive: true, maxSockets: 64 }),
		'https:': new https.Agent({ keepAlive: true, maxSockets: 64 })
	};

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
	async send(
		endpoint: WebhookEndpoint,
		row: ClaimedDelivery
	): Promise<Omit<AttemptResult, 'retryInMs'> & { retryAfterMs: number }> {
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
			const { status, retryAfter } = await this.post(endpoint.url, headers, body);
			if (status >= 200 && status < 300) return { delivered: true, status, error: null, final: false, retryAfterMs: 0 };
			const seconds = Number(retryAfter);
			return {
				delivered: false,
				status,
				error: status === 410 ? 'HTTP 410 Gone: not retried' : `HTTP ${status}`,
				final: status === 410,
				retryAfterMs: Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 0
			};
		} catch (err) {
			return { delivered: false, status: null, error: describe(err, this.timeoutMs), final: false, retryAfterMs: 0 };
		}
	}

	private post(url: string, headers: Record<string, string>, body: string) {
		const target = new URL(url);
		const transport = target.protocol === 'https:' ? https : http;
		return new Promise<{ status: number; retryAfter: string | undefined }>((resolve, reject) => {
			const request = transport.request(
				target,
				{ method: 'POST', headers, agent: this.agents[target.protocol as 'http:' | 'https:'] },
				(response) => {
					clearTimeout(timer);
					response.resume(); // the body is not read: only the status counts
					resolve({ status: response.statusCode ?? 0, retryAfter: response.headers['retry-after'] });
				}
			);
			const timer = setTimeout(() => request.destroy(new AttemptTimeout()), this.timeoutMs);
			request.on('error', (err) => {
				clearTimeout(timer);
				reject(err);
			});
			request.end(body);
		});
	}

	close(): void {
		for (const agent of Object.values(this.agents)) agent.destroy();
	}
}

class AttemptTimeout extends Error {}

// The error code only: messages of network errors can name the URL, whose path may be a token.
function describe(err: unknown, timeoutMs: number): string {
	if (err instanceof AttemptTimeout) return `no answer within ${timeoutMs / 1000} s`;
	const code = (err as { code?: unknown }).code;
	return `could not connect (${typeof code === 'string' ? code : 'network error'})`;
}
