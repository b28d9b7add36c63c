import { HttpRequestError, RpcError, type Log, type PublicClient } from 'viem';

/** Blocks one eth_getLogs asks for at first: what common providers accept for a filtered query. */
export const DEFAULT_CHUNK = 2_000;

export interface LogQuery {
	address: `0x${string}`;
	/** topic0, then the indexed arguments to filter on (null: any). */
	topics: (`0x${string}` | null)[];
}

/**
 * Every log matching `query` in blocks `fromBlock`..`toBlock`, one eth_getLogs per chunk (never one
 * per application). An endpoint that refuses a range (too many blocks or results) gets the same range
 * again in halves, down to one block; a one-block refusal is a real failure and is thrown. The chunk
 * that worked is kept for the rest of the scan.
 */
export async function scanLogs(
	client: PublicClient,
	query: LogQuery,
	fromBlock: bigint,
	toBlock: bigint,
	chunk = DEFAULT_CHUNK
): Promise<Log[]> {
	const logs: Log[] = [];
	let size = BigInt(Math.max(1, chunk));
	let start = fromBlock;
	while (start <= toBlock) {
		const end = start + size - 1n < toBlock ? start + size - 1n : toBlock;
		try {
			const found = await client.request({
				method: 'eth_getLogs',
				params: [{ address: query.address, topics: query.topics, fromBlock: hex(start), toBlock: hex(end) }]
			});
			logs.push(...(found as Log[]));
			start = end + 1n;
		} catch (err) {
			if (end === start || !refusedRange(err)) throw err;
			size = (end - start + 1n) / 2n;
		}
	}
	return logs;
}

/**
 * The endpoint answered and refused (a JSON-RPC error, or an HTTP error status): a smaller range may
 * pass. A timeout or a broken connection is not retried: halving would only multiply the wait.
 */
function refusedRange(err: unknown): boolean {
	if (err instanceof RpcError) return true;
	return err instanceof HttpRequestError && err.status !== undefined;
}

const hex = (n: bigint) => `0x${n.toString(16)}` as const;

/**
 * The first block whose timestamp is at or after `time` (the newest block when none is), by binary
 * search over block headers: about log2(head) requests, made once per reconcile for the earliest
 * approval of all the applications it looks for.
 */
export async function firstBlockAtOrAfter(client: PublicClient, time: Date, head: bigint): Promise<bigint> {
	const target = BigInt(Math.floor(time.getTime() / 1000));
	let low = 0n;
	let high = head;
	while (low < high) {
		const middle = (low + high) / 2n;
		const block = await client.getBlock({ blockNumber: middle });
		if (block.timestamp >= target) high = middle;
		else low = middle + 1n;
	}
	return low;
}
