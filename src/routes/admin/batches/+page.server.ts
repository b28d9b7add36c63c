import { getAddress } from 'viem';
import { requireAdmin } from '$lib/server/auth/guards';
import { batchPreviews } from '$lib/server/chain/batch-download';
import { runtime, withDatabase } from '$lib/server/platform/runtime';
import type { PageServerLoad } from './$types';

// The Safe batches before download: who receives what, from which Safe (docs/fulfilment.md).
export const load: PageServerLoad = async ({ locals, url }) => {
	requireAdmin({ locals, url });
	const batches = await withDatabase((db) => batchPreviews(db, runtime().config, url.searchParams));
	const treasury = runtime().config.fulfilment.treasuryAddress;
	return { batches, treasury: treasury && getAddress(treasury), query: url.searchParams.toString() };
};
