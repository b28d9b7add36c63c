/**
 * The eligibility tests' chain 137 (ganache, in-process, tests/helpers/safe-chain.ts): OpenZeppelin's
 * ERC-20 ("COMM", 18 decimals), ERC-721 and ERC-1155 of tests/fixtures/contracts/Eligibility.sol
 * (compiled into Eligibility.json by scripts/test-contracts.js), a 1-of-1 Safe, and, when asked, Multicall3 at its
 * canonical address (its runtime code put there with ganache's evm_setAccountCode).
 */
import { erc20Abi, type Abi, type Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { polygon } from 'viem/chains';
import { MULTICALL3 } from '../../src/lib/eligibility/rules';
import { readContracts } from './contract-artifacts';
import { startSafeChain, type SafeChain } from './safe-chain';

type Name = 'CommunityCoin' | 'MembershipNft' | 'Badges' | 'Multicall3Subset';
type Compiled = Record<Name, { abi: Abi; bytecode: Hex; runtime: Hex }>;

/** The fixture's contracts, as compiled by scripts/test-contracts.js (committed; a unit test checks they are current). */
export function eligibilityContracts(): Compiled {
	return readContracts<Name>('Eligibility.sol');
}

export interface EligibilityChain {
	chain: SafeChain;
	/** The ERC-20 (COMM, 18 decimals); the deployer holds its whole supply at the start. */
	coin: `0x${string}`;
	nft: `0x${string}`;
	badges: `0x${string}`;
	/** A 1-of-1 Safe owned by the deployer. */
	safe: `0x${string}`;
	/** Sends `amount` COMM base units from the deployer. */
	giveCoin(to: `0x${string}`, amount: bigint): Promise<void>;
	/** `from` (given gas money first) sends `amount` COMM base units to `to`: a holding that moves away. */
	sendCoinFrom(from: PrivateKeyAccount, to: `0x${string}`, amount: bigint): Promise<void>;
	mintNft(to: `0x${string}`): Promise<void>;
	mintBadge(to: `0x${string}`, id: bigint, amount: bigint): Promise<void>;
	/** Puts Multicall3 at its canonical address (or removes it). */
	setMulticall3(deployed: boolean): Promise<void>;
	close(): Promise<void>;
}

export async function startEligibilityChain(options: { multicall3?: boolean } = {}): Promise<EligibilityChain> {
	const chain = await startSafeChain();
	const c = eligibilityContracts();
	const owner = chain.deployer;
	const [coin, nft, badges, safe] = [
		await chain.deploy(c.CommunityCoin, [owner.address, 10n ** 30n]),
		await chain.deploy(c.MembershipNft),
		await chain.deploy(c.Badges),
		await chain.createSafe([owner.address], 1)
	];
	const send = async (
		address: `0x${string}`,
		abi: Abi,
		functionName: string,
		args: readonly unknown[],
		account: PrivateKeyAccount = owner
	) => {
		const hash = await chain.wallet.writeContract({ account, chain: polygon, address, abi, functionName, args });
		const receipt = await chain.client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
		if (receipt.status !== 'success') throw new Error(`${functionName} reverted`);
	};
	const eligibility: EligibilityChain = {
		chain,
		coin,
		nft,
		badges,
		safe,
		giveCoin: (to, amount) => send(coin, c.CommunityCoin.abi, 'transfer', [to, amount]),
		async sendCoinFrom(from, to, amount) {
			const gas = await chain.wallet.sendTransaction({
				account: owner,
				chain: polygon,
				to: from.address,
				value: 10n ** 17n
			});
			await chain.client.waitForTransactionReceipt({ hash: gas, pollingInterval: 50 });
			await send(coin, erc20Abi, 'transfer', [to, amount], from);
		},
		mintNft: (to) => send(nft, c.MembershipNft.abi, 'mint', [to]),
		mintBadge: (to, id, amount) => send(badges, c.Badges.abi, 'mint', [to, id, amount]),
		async setMulticall3(deployed) {
			await chain.client.request({
				method: 'evm_setAccountCode' as never,
				params: [MULTICALL3, deployed ? c.Multicall3Subset.runtime : '0x'] as never
			});
		},
		close: () => chain.close()
	};
	if (options.multicall3 ?? true) await eligibility.setMulticall3(true);
	return eligibility;
}
