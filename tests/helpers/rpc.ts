import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
	decodeAbiParameters,
	erc6492SignatureValidatorByteCode,
	isAddressEqual,
	parseErc6492Signature,
	recoverAddress,
	type Address,
	type Hex
} from 'viem';

/** A smart-contract wallet the fake chain knows: ERC-1271 valid when `owner` signed the hash. */
export interface FakeWallet {
	address: Address;
	owner: Address;
	/** Set for a not-yet-deployed (counterfactual, ERC-6492) wallet: the factory call that would deploy it. */
	counterfactual?: { factory: Address; factoryData: Hex };
}

export interface JsonRpcCall {
	method: string;
	params: unknown[];
}

/** What the fake chain knows of a transaction; a hash it is not given is unknown to it. */
export type FakeTxState = 'success' | 'reverted' | 'pending';

export interface FakeRpc {
	url: string;
	calls: JsonRpcCall[];
	/** Transactions the chain knows, by lowercase hash; change it at any time. */
	transactions: Map<string, FakeTxState>;
	/** While true, every request is read and never answered (an endpoint that hangs). */
	silent: boolean;
	close(): Promise<void>;
}

const word = (n: number): Hex => `0x${n.toString(16).padStart(64, '0')}`;
const SENDER = '0x00000000000000000000000000000000000000a1';
const TARGET = '0x00000000000000000000000000000000000000b2';

/** eth_getTransactionByHash's answer, as a node gives it (no block yet while pending). */
function transactionJson(hash: string, state: FakeTxState, chainId: number) {
	const mined = state !== 'pending';
	return {
		hash,
		blockHash: mined ? word(0xb10c) : null,
		blockNumber: mined ? '0x10' : null,
		transactionIndex: mined ? '0x0' : null,
		from: SENDER,
		to: TARGET,
		nonce: '0x1',
		value: '0x0',
		gas: '0x5208',
		gasPrice: '0x3b9aca00',
		input: '0x',
		type: '0x0',
		chainId: `0x${chainId.toString(16)}`,
		v: '0x135',
		r: word(1),
		s: word(2)
	};
}

/** eth_getTransactionReceipt's answer for a mined transaction: status 0x1 (success) or 0x0 (reverted). */
function receiptJson(hash: string, state: 'success' | 'reverted') {
	return {
		transactionHash: hash,
		transactionIndex: '0x0',
		blockHash: word(0xb10c),
		blockNumber: '0x10',
		from: SENDER,
		to: TARGET,
		contractAddress: null,
		cumulativeGasUsed: '0x5208',
		gasUsed: '0x5208',
		effectiveGasPrice: '0x3b9aca00',
		logs: [],
		logsBloom: `0x${'0'.repeat(512)}`,
		status: state === 'success' ? '0x1' : '0x0',
		type: '0x0'
	};
}

/**
 * A JSON-RPC server on loopback that plays a chain (137 unless told otherwise) for viem's
 * verifyMessage: eth_chainId, and eth_call of the deployless ERC-6492 universal validator
 * (validator bytecode followed by abi.encode(signer, hash, signature), no `to`), whose answer is
 * the one byte 0x01 or 0x00 that the real validator returns. For tx-hash checks it answers
 * eth_getTransactionReceipt and eth_getTransactionByHash from `transactions` (null for a hash it
 * does not know, and no receipt while pending); `silent` makes it answer nothing at all.
 */
export async function startFakeRpc(
	options: { chainId?: number; wallets?: FakeWallet[]; transactions?: Record<string, FakeTxState> } = {}
): Promise<FakeRpc> {
	const chainId = options.chainId ?? 137;
	const wallets = options.wallets ?? [];
	const calls: JsonRpcCall[] = [];
	const transactions = new Map(Object.entries(options.transactions ?? {}).map(([h, t]) => [h.toLowerCase(), t]));

	async function validate(signer: Address, hash: Hex, signature: Hex): Promise<boolean> {
		const wallet = wallets.find((w) => isAddressEqual(w.address, signer));
		let inner = signature;
		const wrapped = parseErc6492Signature(signature);
		if (wrapped.address && wrapped.data) {
			// A counterfactual wallet: the validator would deploy it through the factory first.
			const cf = wallet?.counterfactual;
			if (
				!cf ||
				!isAddressEqual(cf.factory, wrapped.address) ||
				cf.factoryData.toLowerCase() !== wrapped.data.toLowerCase()
			) {
				return false;
			}
			inner = wrapped.signature;
		} else if (wallet?.counterfactual) {
			return false; // Not deployed: no code answers isValidSignature.
		}
		try {
			const recovered = await recoverAddress({ hash, signature: inner });
			return isAddressEqual(recovered, wallet ? wallet.owner : signer);
		} catch {
			return false;
		}
	}

	async function answer(call: { id?: unknown; method?: string; params?: unknown[] }) {
		const { id = null, method = '', params = [] } = call;
		calls.push({ method, params });
		if (method === 'eth_chainId') return { jsonrpc: '2.0', id, result: `0x${chainId.toString(16)}` };
		if (method === 'eth_getTransactionByHash' || method === 'eth_getTransactionReceipt') {
			const hash = typeof params[0] === 'string' ? params[0].toLowerCase() : '';
			const state = transactions.get(hash);
			if (!state) return { jsonrpc: '2.0', id, result: null };
			if (method === 'eth_getTransactionByHash')
				return { jsonrpc: '2.0', id, result: transactionJson(hash, state, chainId) };
			return { jsonrpc: '2.0', id, result: state === 'pending' ? null : receiptJson(hash, state) };
		}
		if (method === 'eth_call') {
			const request = (params[0] ?? {}) as { to?: string; data?: Hex };
			const data = request.data ?? '0x';
			if (!request.to && data.toLowerCase().startsWith(erc6492SignatureValidatorByteCode.toLowerCase())) {
				const [signer, hash, signature] = decodeAbiParameters(
					[{ type: 'address' }, { type: 'bytes32' }, { type: 'bytes' }],
					`0x${data.slice(erc6492SignatureValidatorByteCode.length)}`
				);
				return { jsonrpc: '2.0', id, result: (await validate(signer, hash, signature)) ? '0x01' : '0x00' };
			}
			return { jsonrpc: '2.0', id, error: { code: 3, message: 'execution reverted' } };
		}
		return { jsonrpc: '2.0', id, error: { code: -32601, message: `method ${method} not supported by the fake` } };
	}

	const server: Server = createServer((req, res) => {
		let body = '';
		req.on('data', (chunk: Buffer) => (body += chunk.toString()));
		req.on('end', () => {
			if (fake.silent) {
				let method = '';
				try {
					const parsed = (JSON.parse(body) as { method?: unknown }).method;
					if (typeof parsed === 'string') method = parsed;
				} catch {
					// Logged as '' all the same.
				}
				calls.push({ method, params: [] });
				return; // Read, never answered.
			}
			let payload: unknown;
			try {
				payload = JSON.parse(body);
			} catch {
				res.writeHead(400).end();
				return;
			}
			void (Array.isArray(payload) ? Promise.all(payload.map(answer)) : answer(payload as never)).then((result) =>
				res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result))
			);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	const fake: FakeRpc = {
		url: `http://127.0.0.1:${port}`,
		calls,
		transactions,
		silent: false,
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			})
	};
	return fake;
}
