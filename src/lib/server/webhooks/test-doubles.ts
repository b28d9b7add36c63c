// Stand-ins for the outbox and the receivers, for the unit tests of the claim/send/record code.
import type { SendResult } from './deliver';
import type { AttemptSender, DeliveryStore } from './dispatch';
import { toEndpoint, type EndpointFormat, type WebhookEndpoint } from './endpoints';
import type { ClaimedDelivery, RecordedAttempt } from './outbox';

export const endpoint = (path: string, format: EndpointFormat = 'standard'): WebhookEndpoint => ({
	...toEndpoint(`http://127.0.0.1:9/${path}`),
	format
});

/** An outbox in memory: due rows in id order, claims that lease them, records that settle them. */
export class MemoryOutbox implements DeliveryStore {
	readonly rows: (ClaimedDelivery & { state: 'due' | 'claimed' | 'delivered' | 'retry' })[] = [];
	readonly claims: { at: number; ids: number[] }[] = [];
	readonly records: { at: number; ids: number[] }[] = [];

	add(target: WebhookEndpoint, count: number): void {
		for (let i = 0; i < count; i++) {
			const id = this.rows.length + 1;
			this.rows.push({
				id,
				eventId: `evt_${id}`,
				eventType: 'checkin.created',
				data: {},
				occurredAt: new Date(),
				urlHash: target.hash,
				attempts: 0,
				state: 'due'
			});
		}
	}

	private take(rows: this['rows']) {
		for (const row of rows) [row.state, row.attempts] = ['claimed', row.attempts + 1];
		if (rows.length > 0) this.claims.push({ at: Date.now(), ids: rows.map((r) => r.id) });
		return Promise.resolve(rows.map(({ state: _, ...row }) => ({ ...row })));
	}

	claimHeads(hashes: readonly string[]) {
		// As the outbox's: the oldest claimable row of each (a row being sent or waiting for a retry is not).
		return this.take(hashes.flatMap((h) => this.rows.find((r) => r.urlHash === h && r.state === 'due') ?? []));
	}

	claimDue(hashes: readonly string[], limit: number) {
		return this.take(this.rows.filter((r) => r.state === 'due' && hashes.includes(r.urlHash)).slice(0, limit));
	}

	recordAttempts(batch: readonly RecordedAttempt[]) {
		this.records.push({ at: Date.now(), ids: batch.map((a) => a.id) });
		for (const a of batch) this.rows.find((r) => r.id === a.id)!.state = a.delivered ? 'delivered' : 'retry';
		return Promise.resolve(batch.length);
	}

	count(state: string) {
		return this.rows.filter((r) => r.state === state).length;
	}
}

/** A receiver that answers each attempt after `ms` with `answer`; counts attempts by webhook-id. */
export function slowSender(ms: number, answer: (row: ClaimedDelivery) => Partial<SendResult> = () => ({})) {
	const sent: string[] = [];
	const sender: AttemptSender = {
		send: (_, row) =>
			new Promise((resolve) =>
				setTimeout(() => {
					sent.push(row.eventId);
					resolve({
						delivered: true,
						status: 204,
						error: null,
						final: false,
						retryAfterMs: 0,
						emptyForMs: 0,
						...answer(row)
					});
				}, ms)
			)
	};
	return { sender, sent };
}
