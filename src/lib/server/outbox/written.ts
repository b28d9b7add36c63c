import { singleton } from '$lib/platform/singleton';

// Outbox rows this process has written, of every channel: a request that wrote some may start their
// first attempt after its response (deliverAfterResponse). A rolled-back write counts too, and costs
// one empty claim.
const written = singleton('outbox rows written', () => ({ rows: 0 }));

export const outboxRowsWritten = () => written.get().rows;

/** Called by every writer of outbox rows: the count only has to change when some may have been written. */
export const noteOutboxRows = (n: number) => void (written.get().rows += n);
