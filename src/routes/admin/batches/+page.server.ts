import { getAddress } from 'viem';
import { error } from '@sveltejs/kit';
import { requireWholeAdmin } from '$lib/server/auth/guards';
import { batchPreviews, parseBatchIds } from '$lib/server/chain/batch-download';
import { runtime, withDatabase } from '$lib/server/platform/runtime';
import type { PageServerLoad } from './$types';

// The Safe batches before download: who receives what, from which Safe (docs/fulfilment.md).
export const load: PageServerLoad = async ({ locals, url }) => {
	requireWholeAdmin({ locals, url });
	// Malformed ids are the request's fault (400); ids that are not waiting are shown per step.
	const ids = parseBatchIds(url.searchParams);
	if (!ids.ok) error(400, { code: ids.code, message: ids.message });
	const batches = await withDatabase((db) => batchPreviews(db, runtime().config, url.searchParams));
	const treasury = runtime().config.fulfilment.treasuryAddress;
	return {
		batches,
		treasury: treasury && getAddress(treasury),
		query: new URLSearchParams((ids.ids ?? []).map((id) => ['ids', id])).toString()
	};
};
