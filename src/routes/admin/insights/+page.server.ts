import { requireAdmin } from '$lib/server/auth/guards';
import { readInsights } from '$lib/server/insights/insights';
import { withDatabase } from '$lib/server/platform/runtime';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async ({ locals, url }) => {
	requireAdmin({ locals, url });
	return { insights: await withDatabase((db) => readInsights(db)) };
};
