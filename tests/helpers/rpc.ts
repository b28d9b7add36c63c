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

export interface FakeRpc {
	url: string;
	calls: JsonRpcCall[];
	close(): Promise<void>;
}

/**
 * A JSON-RPC server on loopback that plays a chain (137 unless told otherwise) for viem's
 * verifyMessage: eth_chainId, and eth_call of the deployless ERC-6492 universal validator
 * (validator bytecode followed by abi.encode(signer, hash, signature), no `to`), whose answer is
 * the one byte 0x01 or 0x00 that the real validator returns.
 */
export async function startFakeRpc(options: { chainId?: number; wallets?: FakeWallet[] } = {}): Promise<FakeRpc> {
	const chainId = options.chainId ?? 137;
	const wallets = options.wallets ?? [];
	const calls: JsonRpcCall[] = [];

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
	return {
		url: `http://127.0.0.1:${port}`,
		calls,
		close: () => new Promise<void>((resolve) => server.close(() => resolve()))
	};
}
