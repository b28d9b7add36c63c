import { TransactionNotFoundError, TransactionReceiptNotFoundError, type Hex } from 'viem';
import { polygonRpc } from '../chain/polygon';
import type { RpcEndpoint } from '../platform/endpoints';
import { ok, type Failed, type Result } from '$lib/platform/result';
import { m } from '$lib/paraglide/messages';

/**
 * What chain 137 says about a tx hash (docs/transitions.md "Checking the tx hash on chain"): a hash
 * to record, verified or not, or a refusal (the chain does not know it, or it reverted).
 */
export type TxCheck = Result<TxVerdict, Failed<'tx_unknown' | 'tx_reverted'>>;

/** `verified: null` records the move unverified; `unverified` says why, for the admin's message. */
export type TxVerdict = { verified: true } | { verified: null; unverified: 'not_configured' | 'pending' | 'no_answer' };

/** The refusals in English (the API's words); a page gets them in its locale (m.admin_tx_unknown, m.admin_tx_reverted). */
export const UNKNOWN_TX =
	'Chain 137 (Polygon) does not know this transaction hash. Check that it is the hash of the Polygon transaction, copied in full.';
export const REVERTED_TX =
	'This transaction reverted on chain 137 (Polygon): the on-chain step did not happen. Record the hash of a transaction that succeeded.';

/**
 * Looks `hash` (0x + 64 hex) up on chain 137 through `polygon` (POLYGON_RPC_URL): a receipt with status success
 * verifies it, a reverted one or a hash the chain does not know at all is refused, and a known
 * transaction without a receipt yet (pending), an endpoint that serves another chain, an RPC error
 * or no answer within the endpoint's budget (5 s) leave it unverified; without an endpoint (no
 * POLYGON_RPC_URL: `polygon` null) nothing is looked up. Never throws. Call it outside any database
 * transaction: it waits on the network.
 */
export async function verifyTxHash(polygon: RpcEndpoint | null, hash: string): Promise<TxCheck> {
	if (!polygon) return ok({ verified: null, unverified: 'not_configured' });
	const { url, timeoutMs } = polygon;
	let timer: ReturnType<typeof setTimeout> | undefined;
	const deadline = new Promise<TxCheck>((resolve) => {
		timer = setTimeout(() => resolve(noAnswer), timeoutMs);
	});
	try {
		return await Promise.race([lookUp(url, timeoutMs, hash as Hex), deadline]);
	} finally {
		clearTimeout(timer);
	}
}

const noAnswer: TxCheck = ok({ verified: null, unverified: 'no_answer' });

async function lookUp(url: string, timeoutMs: number, hash: Hex): Promise<TxCheck> {
	const { client, confirmChain } = polygonRpc(url, timeoutMs);
	try {
		// Another chain's answer would say nothing about chain 137: unverified, never refused.
		if (!(await confirmChain())) return noAnswer;
		const receipt = await client.getTransactionReceipt({ hash }).catch((err: unknown) => {
			if (err instanceof TransactionReceiptNotFoundError) return null;
			throw err;
		});
		if (receipt) {
			return receipt.status === 'success'
				? ok({ verified: true })
				: { ok: false, code: 'tx_reverted', message: m.admin_tx_reverted() };
		}
		const known = await client.getTransaction({ hash }).then(
			() => true,
			(err: unknown) => {
				if (err instanceof TransactionNotFoundError) return false;
				throw err;
			}
		);
		return known
			? ok({ verified: null, unverified: 'pending' })
			: { ok: false, code: 'tx_unknown', message: m.admin_tx_unknown() };
	} catch {
		return noAnswer;
	}
}
