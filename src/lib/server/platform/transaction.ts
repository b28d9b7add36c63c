import { TransactionRollbackError } from 'drizzle-orm';
import type { Failed, Result } from '$lib/platform/result';
import type { Database } from '../db/client';

type Transaction = Parameters<Parameters<Database['transaction']>[0]>[0];

/**
 * Runs `work` in one transaction that commits when it answers ok and rolls back when it answers a
 * failure, which is then the answer: a refusal decided inside a transaction leaves nothing written,
 * and no caller throws an error of its own to get there. Errors are rethrown as they are.
 */
export async function transactionOutcome<T, F extends Failed>(
	db: Database,
	work: (tx: Transaction) => Promise<Result<T, F>>
): Promise<Result<T, F>> {
	let refused: F | null = null;
	try {
		return await db.transaction(async (tx) => {
			const result = await work(tx);
			if (result.ok) return result;
			refused = result;
			// Drizzle rolls a transaction back when its callback throws; this is its own way to say so.
			tx.rollback();
			return result;
		});
	} catch (err) {
		if (refused && err instanceof TransactionRollbackError) return refused;
		throw err;
	}
}
