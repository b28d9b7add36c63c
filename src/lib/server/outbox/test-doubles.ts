// Stand-ins for the outbox and the receivers, for the unit tests of the claim/send/record code.
import { queueKey, type Channel, type SendResult } from './channel';
import type { DeliveryStore } from './dispatch';
import type { ClaimedDelivery, DueQueues, RecordedAttempt } from './store';

/** A queue of the tests: a webhook URL's (`hook`), paced when `paced` (a chat endpoint). */
export interface TestQueue {
	urlHash: string;
	paced: boolean;
}

export const endpoint = (name: string, format: 'standard' | 'discord' | 'slack' = 'standard'): TestQueue => ({
	urlHash: name,
	paced: format !== 'standard'
});

/** An outbox in memory: due rows in id order, claims that lease them, records that settle them. */
export class MemoryOutbox implements DeliveryStore {
	readonly rows: (ClaimedDelivery & { state: 'due' | 'claimed' | 'delivered' | 'retry' })[] = [];
	readonly claims: { at: number; ids: number[] }[] = [];
	readonly records: { at: number; ids: number[] }[] = [];

	add(target: TestQueue, count: number): void {
		for (let i = 0; i < count; i++) {
			const id = this.rows.length + 1;
			this.rows.push({
				id,
				eventId: `evt_${id}`,
				eventType: 'checkin.created',
				data: {},
				occurredAt: new Date(),
				channel: 'webhook',
				urlHash: target.urlHash,
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

	claimDue(queues: DueQueues, limit: number) {
		const wanted = new Set([...queues.hashes, ...queues.channels]);
		return this.take(this.rows.filter((r) => r.state === 'due' && wanted.has(queueKey(r))).slice(0, limit));
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

/**
 * A channel of `queues` whose receiver answers each attempt after `ms` with `answer`; counts attempts by
 * event id.
 */
export function slowSender(
	ms: number,
	answer: (row: ClaimedDelivery) => Partial<SendResult> = () => ({}),
	queues: readonly TestQueue[] = []
) {
	const sent: string[] = [];
	const sender: Channel = {
		name: 'webhook',
		queues,
		close: () => Promise.resolve(),
		send: (row) =>
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
