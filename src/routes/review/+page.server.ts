import { requireReviewer } from '$lib/server/auth/guards';
import { withDatabase } from '$lib/server/platform/runtime';
import { parseReviewQuery, reviewQueue } from '$lib/server/reviews/queue';
import type { PageServerLoad } from './$types';

// The reviewer's queue and their voted tab (hidden from everyone else like an unknown path).
export const load: PageServerLoad = async ({ locals, url }) => {
	const reviewer = requireReviewer({ locals });
	const query = parseReviewQuery(url.searchParams);
	const page = await withDatabase((db) => reviewQueue(db, reviewer.address, query));
	return { tab: query.tab, first: !query.after, page, now: new Date().toISOString() };
};
