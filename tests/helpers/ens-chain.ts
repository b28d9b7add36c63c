/**
 * A stand-in for ENS on an in-process ganache chain: tests/fixtures/contracts/Ens.sol's
 * TestUniversalResolver placed (evm_setAccountCode) at viem's mainnet Universal Resolver address, so a
 * client of mainnet given this chain's URL as ENS_RPC_URL resolves names from the records a test sets.
 */
import ganache from 'ganache';
import { createPublicClient, createWalletClient, http, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { mainnet } from 'viem/chains';
import { namehash } from 'viem/ens';
import { readContracts } from './contract-artifacts';

const KEY: Hex = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const RESOLVER = mainnet.contracts.ensUniversalResolver.address;

export interface EnsChain {
	/** The JSON-RPC URL to give the portal as ENS_RPC_URL. */
	url: string;
	/** Sets the reverse record of `address` (an empty name: none). */
	setName(address: `0x${string}`, name: string): Promise<void>;
	/** Points `name` forward at `address`. */
	setAddress(name: string, address: `0x${string}`): Promise<void>;
	close(): Promise<void>;
}

export async function startEnsChain(): Promise<EnsChain> {
	const { TestUniversalResolver: contract } = readContracts<'TestUniversalResolver'>('Ens.sol');
	const account = privateKeyToAccount(KEY);
	const server = ganache.server({
		chain: { chainId: 1 },
		logging: { quiet: true },
		wallet: { accounts: [{ secretKey: KEY, balance: 10n ** 21n }] }
	});
	await server.listen(0, '127.0.0.1');
	const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
	const client = createPublicClient({ chain: mainnet, transport: http(url) });
	const wallet = createWalletClient({ account, chain: mainnet, transport: http(url) });
	await client.request({ method: 'evm_setAccountCode' as never, params: [RESOLVER, contract.runtime] as never });
	const send = async (functionName: 'setName' | 'setAddr', args: readonly unknown[]) => {
		const hash = await wallet.writeContract({ address: RESOLVER, abi: contract.abi, functionName, args });
		await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
	};
	return {
		url,
		setName: (address, name) => send('setName', [address, name]),
		setAddress: (name, address) => send('setAddr', [namehash(name), address]),
		close: () => server.close()
	};
}
