/**
 * The fulfilment tests' chain 137 (ganache, in-process): a Safe 1.4.1 treasury (tests/helpers/safe-chain.ts)
 * owned 1-of-1 by the funded deployer, MultiSendCallOnly from the Safe artifacts, and, from
 * tests/fixtures/contracts/Fulfilment.sol (compiled into Fulfilment.json by scripts/test-contracts.js),
 * a community token held by the Safe and an allowlist the Safe owns. `execute` runs a Safe Transaction Builder file's transactions through the
 * Safe in one transaction, as Safe{Wallet} does for a batch.
 */
import { concat, encodeFunctionData, encodePacked, pad, size, zeroAddress, type Abi, type Hex } from 'viem';
import { polygon } from 'viem/chains';
import { readContracts } from './contract-artifacts';
import { artifact, startSafeChain, type SafeChain } from './safe-chain';

const MULTI_SEND = artifact('libraries/MultiSendCallOnly.sol/MultiSendCallOnly.json');
const SAFE = artifact('Safe.sol/Safe.json');

type Compiled = Record<'CommunityToken' | 'Allowlist', { abi: Abi; bytecode: Hex }>;

/** The two test contracts, as compiled by scripts/test-contracts.js (committed; a unit test checks they are current). */
export function testContracts(): Compiled {
	return readContracts<'CommunityToken' | 'Allowlist'>('Fulfilment.sol');
}

/** One call of a batch: what the Transaction Builder file's `transactions` hold. */
export interface BatchCall {
	to: `0x${string}`;
	value: string;
	data: Hex;
}

export interface FulfilmentChain {
	chain: SafeChain;
	safe: `0x${string}`;
	token: `0x${string}`;
	allowlist: `0x${string}`;
	/** The treasury's token balance at the start. */
	supply: bigint;
	/** The portal's settings for this chain. */
	env(grant: bigint): Record<string, string>;
	/** Executes `calls` through the Safe in one transaction (MultiSendCallOnly, delegatecall); its hash and status. */
	execute(calls: BatchCall[]): Promise<{ hash: Hex; status: 'success' | 'reverted'; blockNumber: bigint }>;
	/** Mines `blocks` empty blocks (ganache's evm_mine). */
	mine(blocks: number): Promise<void>;
	close(): Promise<void>;
}

/** MultiSend's packed encoding: operation (0: call), to, value, data length, data; one after another. */
function multiSendData(calls: BatchCall[]): Hex {
	const packed = concat(
		calls.map((c) =>
			encodePacked(
				['uint8', 'address', 'uint256', 'uint256', 'bytes'],
				[0, c.to, BigInt(c.value), BigInt(size(c.data)), c.data]
			)
		)
	);
	return encodeFunctionData({ abi: MULTI_SEND.abi, functionName: 'multiSend', args: [packed] });
}

export async function startFulfilmentChain(supply = 10n ** 24n): Promise<FulfilmentChain> {
	const chain = await startSafeChain();
	const contracts = testContracts();
	const owner = chain.deployer;
	const safe = await chain.createSafe([owner.address], 1);
	const multiSend = await chain.deploy(MULTI_SEND);
	const token = await chain.deploy(contracts.CommunityToken, [safe, supply]);
	const allowlist = await chain.deploy(contracts.Allowlist, [safe]);
	// A 1-of-1 Safe whose owner sends the transaction itself: the "approved by the sender" signature
	// (r = owner, s = 0, v = 1) needs no signing.
	const signature = concat([pad(owner.address), pad('0x0'), '0x01']);

	return {
		chain,
		safe,
		token,
		allowlist,
		supply,
		env: (grant) => ({
			POLYGON_RPC_URL: chain.url,
			TREASURY_ADDRESS: safe,
			PUBLIC_TOKEN_ADDRESS: token,
			PUBLIC_TOKEN_SYMBOL: 'COMM',
			PUBLIC_TOKEN_DECIMALS: '18',
			TOKEN_GRANT_AMOUNT: String(grant),
			ALLOWLIST_CONTRACT: allowlist,
			ALLOWLIST_FUNCTION: 'addToAllowlist(address[])',
			ALLOWLIST_EVENT: 'Allowlisted(address indexed account)'
		}),
		async execute(calls) {
			const hash = await chain.wallet.writeContract({
				account: owner,
				chain: polygon,
				address: safe,
				abi: SAFE.abi,
				functionName: 'execTransaction',
				args: [multiSend, 0n, multiSendData(calls), 1, 0n, 0n, 0n, zeroAddress, zeroAddress, signature],
				// Given, not estimated: a batch that fails inside is still mined, as a reverted transaction.
				gas: 8_000_000n
			});
			const receipt = await chain.client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
			return { hash, status: receipt.status, blockNumber: receipt.blockNumber };
		},
		async mine(blocks) {
			// In steps: one request for 100,000 blocks outlasts the client's timeout, and a retry mines them again.
			const head = await chain.client.getBlockNumber({ cacheTime: 0 });
			for (let left = blocks; left > 0; left -= 2_000)
				await chain.client.request({
					method: 'evm_mine' as never,
					params: [{ blocks: Math.min(left, 2_000) }] as never
				});
			const now = await chain.client.getBlockNumber({ cacheTime: 0 });
			if (now !== head + BigInt(blocks)) throw new Error(`mined ${now - head} blocks, not ${blocks}`);
		},
		close: () => chain.close()
	};
}
