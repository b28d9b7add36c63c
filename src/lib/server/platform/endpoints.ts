/** How long one request to an RPC endpoint (POLYGON_RPC_URL, ENS_RPC_URL) may take; a check's whole budget. */
export const RPC_TIMEOUT_MS = 5_000;

/** A JSON-RPC endpoint and the budget of one whole look-up through it (tests may shorten it). */
export interface RpcEndpoint {
	url: string;
	timeoutMs: number;
}

/**
 * The chain endpoints the configuration names. `startRuntime` builds them once (`runtime().chain`); a
 * route passes the one an operation needs as an argument (`transitionApplication(db, outbox,
 * runtime().chain.polygon, …)`). null: not configured, nothing is looked up.
 */
export interface ChainEndpoints {
	/** POLYGON_RPC_URL: tx-hash checks and eligibility checks on chain 137. */
	polygon: RpcEndpoint | null;
	/** ENS_RPC_URL: ENS names on Ethereum mainnet. */
	ens: RpcEndpoint | null;
}

export const rpcEndpoint = (url: string | null, timeoutMs = RPC_TIMEOUT_MS): RpcEndpoint | null =>
	url ? { url, timeoutMs } : null;
