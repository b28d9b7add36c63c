import { batchRoute } from '$lib/server/chain/batch-route';

// The Safe Transaction Builder file of the distribution step (docs/fulfilment.md).
export const { GET, fallback } = batchRoute('distribution');
