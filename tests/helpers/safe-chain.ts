/**
 * A real Safe 1.4.1 on an in-process chain 137 (ganache, served over HTTP on loopback): the contracts'
 * bytecode from @safe-global/safe-contracts' build artifacts, a proxy per Safe created through the
 * SafeProxyFactory with the CompatibilityFallbackHandler (which answers ERC-1271 isValidSignature).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ganache from 'ganache';
import {
	createPublicClient,
	createWalletClient,
	encodeFunctionData,
	getAddress,
	hashMessage,
	http,
	zeroAddress,
	type Abi,
	type Hex,
	type PublicClient,
	type WalletClient
} from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { polygon } from 'viem/chains';

const ARTIFACTS = path.resolve('node_modules/@safe-global/safe-contracts/build/artifacts/contracts');

export function artifact(file: string): { abi: Abi; bytecode: Hex } {
	const json = JSON.parse(readFileSync(path.join(ARTIFACTS, file), 'utf8')) as { abi: Abi; bytecode: Hex };
	return { abi: json.abi, bytecode: json.bytecode };
}

const SAFE = artifact('Safe.sol/Safe.json');
const FACTORY = artifact('proxies/SafeProxyFactory.sol/SafeProxyFactory.json');
const HANDLER = artifact('handler/CompatibilityFallbackHandler.sol/CompatibilityFallbackHandler.json');

// A fixed deployer key (test only): it pays for the deployments on the throwaway chain.
const DEPLOYER_KEY: Hex = '0x8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63';

export interface SafeChain {
	/** The JSON-RPC URL (http://127.0.0.1:port) to give the portal as POLYGON_RPC_URL. */
	url: string;
	client: PublicClient;
	/** Deploys a Safe proxy with these owners and threshold; `salt` tells Safes with the same owners apart. */
	createSafe(owners: `0x${string}`[], threshold: number, salt?: bigint): Promise<`0x${string}`>;
	/** The funded account that deployed everything, and its wallet client (it pays for further transactions). */
	deployer: PrivateKeyAccount;
	wallet: WalletClient;
	/** Deploys a contract from the deployer; its address. */
	deploy(contract: { abi: Abi; bytecode: Hex }, args?: readonly unknown[]): Promise<`0x${string}`>;
	close(): Promise<void>;
}

export async function startSafeChain(): Promise<SafeChain> {
	const deployer = privateKeyToAccount(DEPLOYER_KEY);
	const server = ganache.server({
		chain: { chainId: 137 },
		logging: { quiet: true },
		wallet: { accounts: [{ secretKey: DEPLOYER_KEY, balance: 10n ** 21n }] }
	});
	await server.listen(0, '127.0.0.1');
	const address = server.address() as { port: number };
	const url = `http://127.0.0.1:${address.port}`;
	const client = createPublicClient({ chain: polygon, transport: http(url) });
	const wallet = createWalletClient({ account: deployer, chain: polygon, transport: http(url) });

	async function deploy(
		{ abi, bytecode }: { abi: Abi; bytecode: Hex },
		args: readonly unknown[] = []
	): Promise<`0x${string}`> {
		const hash = await wallet.deployContract({ abi, bytecode, args });
		const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
		if (!receipt.contractAddress) throw new Error('deployment failed');
		return receipt.contractAddress;
	}
	const singleton = await deploy(SAFE);
	const factory = await deploy(FACTORY);
	const handler = await deploy(HANDLER);

	return {
		url,
		client,
		deployer,
		wallet,
		deploy,
		async createSafe(owners, threshold, salt = 0n) {
			const initializer = encodeFunctionData({
				abi: SAFE.abi,
				functionName: 'setup',
				args: [owners, BigInt(threshold), zeroAddress, '0x', handler, zeroAddress, 0n, zeroAddress]
			});
			const { result, request } = await client.simulateContract({
				account: deployer,
				address: factory,
				abi: FACTORY.abi,
				functionName: 'createProxyWithNonce',
				args: [singleton, initializer, salt]
			});
			const hash = await wallet.writeContract(request);
			const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
			if (receipt.status !== 'success') throw new Error('Safe creation failed');
			return getAddress(result);
		},
		close: () => server.close()
	};
}

/**
 * What a Safe owner signs for Safe{Wallet}'s off-chain message: the EIP-712 SafeMessage over the
 * EIP-191 hash of `message` (given as hex, as personal_sign passes it), for that Safe on chain 137.
 * With a 1-of-1 Safe this signature is the Safe's ERC-1271 signature.
 */
export function signSafeMessage(owner: PrivateKeyAccount, safe: `0x${string}`, message: Hex): Promise<Hex> {
	return owner.signTypedData({
		domain: { chainId: 137, verifyingContract: safe },
		types: { SafeMessage: [{ name: 'message', type: 'bytes' }] },
		primaryType: 'SafeMessage',
		message: { message: hashMessage({ raw: message }) }
	});
}
