import {
	BaseError,
	HttpRequestError,
	TimeoutError,
	decodeFunctionResult,
	encodeFunctionData,
	erc20Abi,
	parseAbi,
	type Hex,
	type PublicClient
} from 'viem';
import { REQUIRED_CHAIN_ID } from '$lib/chain/chain';
import { MULTICALL3 } from '$lib/eligibility/rules';
import type { PolygonRpc } from '../chain/polygon';

// The part of Multicall3 used here: aggregate3 plus the two readers that say which block and chain answered.
const multicall3 = parseAbi([
	'struct Call3 { address target; bool allowFailure; bytes callData; }',
	'struct Result { bool success; bytes returnData; }',
	'function aggregate3(Call3[] calls) payable returns (Result[] returnData)',
	'function getBlockNumber() view returns (uint256 blockNumber)',
	'function getChainId() view returns (uint256 chainid)'
]);

/** One eth_call to make at the shared block: its target and calldata. */
export interface ChainCall {
	target: `0x${string}`;
	data: Hex;
}

/** Each call's return data (null when it reverted or the target has no code), all at `block`. */
export interface ChainReading {
	block: bigint;
	returns: (Hex | null)[];
	/** How the calls went out: one Multicall3 eth_call, or parallel eth_calls pinned to one block. */
	via: 'multicall3' | 'parallel';
}

/** The chain did not answer (network, timeout), or answered as another chain than 137. */
export class ChainUnavailableError extends Error {
	constructor(readonly why: 'no_answer' | 'wrong_chain') {
		super(why === 'wrong_chain' ? 'POLYGON_RPC_URL does not serve chain 137' : 'POLYGON_RPC_URL did not answer');
	}
}

// Endpoints found without Multicall3 are not asked for it again for a while (a node may be upgraded).
const NO_MULTICALL_FOR_MS = 10 * 60_000;
const withoutMulticall = new Map<PublicClient, number>();

/** Tests that put Multicall3 back ask for it again at once. */
export const forgetMulticallAbsence = () => withoutMulticall.clear();

/**
 * Makes every call at one block, in one round trip where Multicall3 is deployed (its own
 * getChainId and getBlockNumber ride along, so even the chain check costs nothing more); elsewhere
 * eth_blockNumber, then the calls in parallel pinned to that block number. Throws ChainUnavailableError.
 */
export async function readAtOneBlock(
	rpc: PolygonRpc,
	calls: readonly ChainCall[],
	now = Date.now()
): Promise<ChainReading> {
	const { client } = rpc;
	const skipUntil = withoutMulticall.get(client);
	if (skipUntil === undefined || now >= skipUntil) {
		const reading = await viaMulticall3(client, calls);
		if (reading) return reading;
		withoutMulticall.set(client, now + NO_MULTICALL_FOR_MS);
	}
	return viaParallelCalls(rpc, calls);
}

async function viaMulticall3(client: PublicClient, calls: readonly ChainCall[]): Promise<ChainReading | null> {
	const self = (functionName: 'getChainId' | 'getBlockNumber') => ({
		target: MULTICALL3,
		allowFailure: false,
		callData: encodeFunctionData({ abi: multicall3, functionName })
	});
	const data = encodeFunctionData({
		abi: multicall3,
		functionName: 'aggregate3',
		args: [
			[
				self('getChainId'),
				self('getBlockNumber'),
				...calls.map((c) => ({ target: c.target, allowFailure: true, callData: c.data }))
			]
		]
	});
	let answer: Hex | undefined;
	try {
		({ data: answer } = await client.call({ to: MULTICALL3, data }));
	} catch (err) {
		if (isNoAnswer(err)) throw new ChainUnavailableError('no_answer');
		return null; // Reverted: whatever lives at that address is not Multicall3.
	}
	if (!answer || answer === '0x') return null; // No code at the address: not deployed on this chain.
	let results: readonly { success: boolean; returnData: Hex }[];
	try {
		results = decodeFunctionResult({ abi: multicall3, functionName: 'aggregate3', data: answer });
	} catch {
		return null;
	}
	const word = (i: number) => BigInt(results[i]!.returnData);
	if (word(0) !== BigInt(REQUIRED_CHAIN_ID)) throw new ChainUnavailableError('wrong_chain');
	return {
		block: word(1),
		returns: results.slice(2).map((r) => (r.success && r.returnData !== '0x' ? r.returnData : null)),
		via: 'multicall3'
	};
}

async function viaParallelCalls(rpc: PolygonRpc, calls: readonly ChainCall[]): Promise<ChainReading> {
	const { client, confirmChain } = rpc;
	try {
		// Both in the same round trip; the chain's answer comes first (another chain may not know the block call).
		const [chainOk, head] = await Promise.allSettled([confirmChain(), client.getBlockNumber({ cacheTime: 0 })]);
		if (chainOk.status === 'fulfilled' && !chainOk.value) {
			// confirmChain says false for another chain and for no answer alike: ask once which it was.
			const id = head.status === 'fulfilled' ? null : await client.getChainId().catch(() => REQUIRED_CHAIN_ID);
			throw new ChainUnavailableError(id === REQUIRED_CHAIN_ID ? 'no_answer' : 'wrong_chain');
		}
		if (head.status === 'rejected') throw head.reason;
		const block = head.value;
		const returns = await Promise.all(
			calls.map((c) =>
				client.call({ to: c.target, data: c.data, blockNumber: block }).then(
					({ data }) => (data && data !== '0x' ? data : null),
					(err: unknown) => {
						if (isNoAnswer(err)) throw err;
						return null; // This call reverted; the others stand.
					}
				)
			)
		);
		return { block, returns, via: 'parallel' };
	} catch (err) {
		if (err instanceof ChainUnavailableError) throw err;
		throw new ChainUnavailableError('no_answer');
	}
}

/** A network failure or timeout, as opposed to the node's answer that a call reverted. */
function isNoAnswer(err: unknown): boolean {
	if (!(err instanceof BaseError)) return true;
	return !!err.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError);
}

/** A 32-byte return as a uint256, or null when the call answered anything else. */
export function uint256Of(data: Hex | null): bigint | null {
	if (!data || data.length !== 66) return null;
	return BigInt(data);
}

/** The decimals() and symbol() calls of an ERC-20, for display. */
export const detailCalls = (token: `0x${string}`): [ChainCall, ChainCall] => [
	{ target: token, data: encodeFunctionData({ abi: erc20Abi, functionName: 'decimals' }) },
	{ target: token, data: encodeFunctionData({ abi: erc20Abi, functionName: 'symbol' }) }
];

/** decimals() and symbol() as answered (null for either the token does not answer sensibly). */
export function decodeDetails(
	decimals: Hex | null,
	symbol: Hex | null
): { decimals: number | null; symbol: string | null } {
	const d = uint256Of(decimals);
	let s: string | null = null;
	if (symbol) {
		try {
			s = decodeFunctionResult({ abi: erc20Abi, functionName: 'symbol', data: symbol });
		} catch {
			s = null; // e.g. an old token whose symbol is bytes32
		}
	}
	// Symbols are shown as text; a hostile token's symbol is cut and stripped of control characters.
	// eslint-disable-next-line no-control-regex
	const clean = s?.replace(/[\u0000-\u001f\u007f-\u009f]/g, '').slice(0, 16) || null;
	return { decimals: d !== null && d <= 77n ? Number(d) : null, symbol: clean };
}
