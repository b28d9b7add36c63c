import { erc20Abi, pad, toEventSelector, type AbiEvent, type Log, type PublicClient } from 'viem';
import type { Config } from '../platform/config';
import { firstBlockAtOrAfter, scanLogs, type LogQuery } from './log-scan';
import type { Step, WaitingApplication } from './steps';

/** The on-chain record that settles one application's step. */
export interface Settlement {
	applicationId: string;
	txHash: `0x${string}`;
	blockNumber: bigint;
}

export interface SettlementSearch {
	settled: Settlement[];
	fromBlock: bigint;
	toBlock: bigint;
}

const TRANSFER = erc20Abi.find((item) => item.type === 'event' && item.name === 'Transfer') as AbiEvent;

/** The address in a 32-byte indexed topic, lowercase. */
const topicAddress = (topic: string | undefined) => (topic ? `0x${topic.slice(-40)}`.toLowerCase() : '');

/**
 * What the step's logs look like: a Transfer of the community token from the treasury, or the
 * allowlist contract's ALLOWLIST_EVENT; the applicant is matched here, not in the query, so one
 * query serves every application.
 */
function stepQuery(config: Config, step: Step): LogQuery {
	const f = config.fulfilment;
	if (step === 'distribution')
		return { address: config.token!.address, topics: [toEventSelector(TRANSFER), pad(f.treasuryAddress!), null] };
	return { address: f.allowlistContract!, topics: [toEventSelector(f.allowlistEvent!)] };
}

/** The applicant a log names, if it settles the step: the recipient of at least the grant, or the event's first indexed address. */
function settledAddress(config: Config, step: Step, log: Log): string | null {
	if (log.removed) return null;
	if (step === 'allowlist') return topicAddress(log.topics[1]);
	try {
		if (BigInt(log.data) < config.fulfilment.tokenGrantAmount!) return null; // a smaller amount settles nothing
	} catch {
		return null;
	}
	return topicAddress(log.topics[2]);
}

/**
 * Looks on chain for what settles each waiting application's step (docs/fulfilment.md): one scan of the step's logs from the block of the earliest approval to the head, in bounded
 * chunks; a log settles an application when it names its applicant and its block is not older than
 * the application's approval. The first such log wins. A reverted transaction has no logs, so it
 * settles nothing.
 */
export async function findSettlements(
	client: PublicClient,
	config: Config,
	step: Step,
	waiting: WaitingApplication[],
	chunk?: number
): Promise<SettlementSearch> {
	// Never the client's cached head (4 s): a batch executed just now must be seen.
	const toBlock = await client.getBlockNumber({ cacheTime: 0 });
	if (!waiting.length) return { settled: [], fromBlock: toBlock + 1n, toBlock };
	const earliest = new Date(Math.min(...waiting.map((w) => w.approvedAt.getTime())));
	const fromBlock = await firstBlockAtOrAfter(client, earliest, toBlock);
	const logs = await scanLogs(client, stepQuery(config, step), fromBlock, toBlock, chunk);
	logs.sort((a, b) => Number((a.blockNumber ?? 0n) - (b.blockNumber ?? 0n)) || (a.logIndex ?? 0) - (b.logIndex ?? 0));

	const byApplicant = new Map<string, WaitingApplication>(waiting.map((w) => [w.applicantAddress.toLowerCase(), w]));
	const blockTimes = new Map<bigint, bigint>();
	const settled: Settlement[] = [];
	for (const log of logs) {
		const applicant = byApplicant.get(settledAddress(config, step, log) ?? '');
		if (!applicant || log.blockNumber == null || !log.transactionHash) continue;
		let time = blockTimes.get(log.blockNumber);
		if (time === undefined) {
			time = (await client.getBlock({ blockNumber: log.blockNumber })).timestamp;
			blockTimes.set(log.blockNumber, time);
		}
		// Before the approval: an earlier transfer or listing is not this application's step.
		if (time < BigInt(Math.floor(applicant.approvedAt.getTime() / 1000))) continue;
		settled.push({ applicationId: applicant.id, txHash: log.transactionHash, blockNumber: log.blockNumber });
		byApplicant.delete(applicant.applicantAddress.toLowerCase());
	}
	return { settled, fromBlock, toBlock };
}
