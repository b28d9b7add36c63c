import { requireAdmin } from '$lib/server/auth/guards';
import { readInsights } from '$lib/server/insights/insights';
import { displayNames } from '$lib/server/applications/display-names';
import { withDatabase } from '$lib/server/platform/runtime';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async ({ locals, url }) => {
	requireAdmin({ locals, url });
	return withDatabase(async (db) => {
		const insights = await readInsights(db);
		// The votes chart names its reviewers as every admin page does (display name and short address).
		const names = await displayNames(db, insights.votesPerReviewer?.map((v) => v.reviewer) ?? []);
		return { insights, names };
	});
};
