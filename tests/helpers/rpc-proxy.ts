import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A JSON-RPC proxy on loopback in front of a real node: it counts every request by method, and like
 * many public endpoints refuses an eth_getLogs whose range is wider than `maxRange` blocks (JSON-RPC
 * error -32005), so the portal's chunk halving is exercised against a real chain.
 */
export interface RpcProxy {
	url: string;
	/** Requests seen, by method (a batch counts each call). */
	counts: Map<string, number>;
	/** eth_getLogs ranges asked for, in order, as [from, to]. */
	logRanges: [bigint, bigint][];
	maxRange: number;
	reset(): void;
	close(): Promise<void>;
}

interface Call {
	id?: unknown;
	method?: string;
	params?: { fromBlock?: string; toBlock?: string }[];
}

export async function startRpcProxy(target: string, maxRange = Infinity): Promise<RpcProxy> {
	const proxy: RpcProxy = {
		url: '',
		counts: new Map(),
		logRanges: [],
		maxRange,
		reset() {
			proxy.counts.clear();
			proxy.logRanges.length = 0;
		},
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			})
	};
	async function forward(call: Call): Promise<unknown> {
		const method = call.method ?? '';
		proxy.counts.set(method, (proxy.counts.get(method) ?? 0) + 1);
		if (method === 'eth_getLogs') {
			const { fromBlock = '0x0', toBlock = '0x0' } = call.params?.[0] ?? {};
			const range: [bigint, bigint] = [BigInt(fromBlock), BigInt(toBlock)];
			proxy.logRanges.push(range);
			if (Number(range[1] - range[0] + 1n) > proxy.maxRange)
				return {
					jsonrpc: '2.0',
					id: call.id ?? null,
					error: { code: -32005, message: `block range too large: at most ${proxy.maxRange} blocks` }
				};
		}
		const response = await fetch(target, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(call)
		});
		return response.json();
	}
	const server: Server = createServer((req, res) => {
		let body = '';
		req.on('data', (chunk: Buffer) => (body += chunk.toString()));
		req.on('end', () => {
			const payload = JSON.parse(body) as Call | Call[];
			void (Array.isArray(payload) ? Promise.all(payload.map(forward)) : forward(payload)).then((result) =>
				res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result))
			);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	return proxy;
}
