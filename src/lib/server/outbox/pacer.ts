/**
 * A chat endpoint (Discord, Slack) takes one message at a time, the oldest due first. The pacer knows
 * which are sending now and until when each waits on its own word (an empty rate-limit bucket, a 429's
 * Retry-After); `onFree` is called when one may take its next message.
 */
export class ChatPacer {
	private readonly sending = new Set<string>();
	private readonly pausedUntil = new Map<string, number>();
	private readonly timers = new Set<NodeJS.Timeout>();
	private stopped = false;

	constructor(
		private readonly chat: readonly string[],
		private readonly onFree: () => void
	) {}

	/** Up to `limit` chat endpoints free to take a message now. */
	ready(limit: number): string[] {
		const now = Date.now();
		return this.chat.filter((h) => !this.sending.has(h) && (this.pausedUntil.get(h) ?? 0) <= now).slice(0, limit);
	}

	/** The endpoint's message was claimed: it takes no other until released. */
	take(hash: string): void {
		this.sending.add(hash);
	}

	/** The endpoint may take its next message after `waitMs` (at once when 0). */
	release(hash: string, waitMs: number): void {
		this.sending.delete(hash);
		if (waitMs > 0) this.pause(hash, waitMs);
		else this.onFree();
	}

	/** Whether some chat endpoint is sending or will be free again within `ms` (a run may wait for it). */
	busyWithin(ms: number): boolean {
		if (this.sending.size > 0) return true;
		const by = Date.now() + ms;
		return [...this.pausedUntil.values()].some((until) => until <= by);
	}

	/** No pause timer outlives a stop (an hour-long Retry-After would keep a stopping process alive). */
	stop(): void {
		this.stopped = true;
		for (const timer of this.timers) clearTimeout(timer);
		this.timers.clear();
	}

	private pause(hash: string, ms: number) {
		this.pausedUntil.set(hash, Date.now() + ms);
		if (this.stopped) return;
		// The timer decides when the pause ends (it may fire a little before Date.now() gets there).
		const timer = setTimeout(() => {
			this.timers.delete(timer);
			this.pausedUntil.delete(hash);
			this.onFree();
		}, ms);
		timer.unref();
		this.timers.add(timer);
	}
}
