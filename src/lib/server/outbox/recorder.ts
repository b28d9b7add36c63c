import { isDatabaseUnavailable } from '../db/errors';
import { messageOf, wakeableDelay } from './options';
import type { RecordedAttempt } from './store';
import { logger } from '../platform/observability';

/** Called once an attempt's record was written (true) or failed (false). */
export type AfterRecord = (recorded: boolean) => void;

/**
 * Records finished attempts together: one statement for whatever finished within `delayMs` of the
 * first (or sooner, once `batchSize` have finished), then for whatever finished while it ran.
 */
export class RecordBatcher {
	private readonly results: RecordedAttempt[] = [];
	private readonly after = new Map<number, AfterRecord>();
	private readonly gather = wakeableDelay();
	private recording: Promise<void> | null = null;
	private hurried = false;

	constructor(
		private readonly record: (batch: RecordedAttempt[]) => Promise<unknown>,
		private readonly delayMs: number,
		private readonly batchSize: number
	) {}

	add(result: RecordedAttempt, after?: AfterRecord): void {
		if (after) this.after.set(result.id, after);
		this.results.push(result);
		this.recording ??= this.recordAll();
		if (this.results.length >= this.batchSize) this.gather.wake();
	}

	/** Whether nothing waits to be recorded. */
	get idle(): boolean {
		return this.recording === null;
	}

	/** From now on records without gathering; resolves once everything added so far is recorded. */
	async flush(): Promise<void> {
		this.hurried = true;
		this.gather.wake();
		await this.recording;
	}

	private async recordAll() {
		if (!this.hurried) await this.gather.wait(this.delayMs);
		while (this.results.length > 0) {
			const batch = this.results.splice(0);
			let recorded = false;
			try {
				await this.record(batch);
				recorded = true;
			} catch (err) {
				// Unrecorded rows are claimed again when their lease ends: at least once, same webhook-id.
				if (!isDatabaseUnavailable(err)) logger.error(`outbox: could not record attempts: ${messageOf(err)}`);
			} finally {
				for (const { id } of batch) {
					this.after.get(id)?.(recorded);
					this.after.delete(id);
				}
			}
		}
		this.recording = null;
	}
}
