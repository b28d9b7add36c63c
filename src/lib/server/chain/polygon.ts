import { createPublicClient, http, type PublicClient } from 'viem';
import { polygon } from 'viem/chains';
import { REQUIRED_CHAIN_ID } from '$lib/chain/chain';
import { singleton } from '$lib/platform/singleton';
import { logger } from '../platform/observability';
import { RPC_TIMEOUT_MS } from '../platform/endpoints';

/** A public client on POLYGON_RPC_URL, and whether that endpoint really serves chain 137. */
export interface PolygonRpc {
	client: PublicClient;
	/**
	 * True once the endpoint said it serves chain 137. False when it serves another chain (warned
	 * once; never asked again) or did not answer (asked again next time).
	 */
	confirmChain: () => Promise<boolean>;
}

const clients = singleton('polygon rpc clients', () => new Map<string, PolygonRpc>());

/**
 * The one client per endpoint that sign-in (contract wallets) and tx-hash checks share, so the
 * chain id is asked once per process, not once per use. No retries: a slow endpoint costs at most
 * `timeoutMs` per request.
 */
export function polygonRpc(url: string, timeoutMs = RPC_TIMEOUT_MS): PolygonRpc {
	const key = `${timeoutMs} ${url}`;
	const endpoints = clients.get();
	let rpc = endpoints.get(key);
	if (rpc) return rpc;
	const client: PublicClient = createPublicClient({
		chain: polygon,
		transport: http(url, { timeout: timeoutMs, retryCount: 0 })
	});
	let confirmed: Promise<boolean> | null = null;
	rpc = {
		client,
		confirmChain: () => {
			confirmed ??= client.getChainId().then(
				(id) => {
					if (id !== REQUIRED_CHAIN_ID)
						logger.warn(
							`POLYGON_RPC_URL serves chain ${id}, not ${REQUIRED_CHAIN_ID}: contract wallets cannot sign in and tx hashes are not checked.`
						);
					return id === REQUIRED_CHAIN_ID;
				},
				() => {
					confirmed = null; // A network failure is retried on the next use.
					return false;
				}
			);
			return confirmed;
		}
	};
	endpoints.set(key, rpc);
	return rpc;
}
