import { requireWholeAdmin } from '$lib/server/auth/guards';
import { readInsights } from '$lib/server/insights/insights';
import { displayNames } from '$lib/server/applications/display-names';
import { withDatabase } from '$lib/server/platform/runtime';
import { parseTableQuery } from '$lib/server/applications/review-table';
import { filterChoices, programChoices } from '$lib/server/programs/choices';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async ({ locals, url }) => {
	requireWholeAdmin({ locals, url });
	// The review table's programme and round filters (#57), read the same way.
	const { program, round } = parseTableQuery(url.searchParams);
	return withDatabase(async (db) => {
		const insights = await readInsights(db, { program, round });
		const programs = await programChoices(db);
		// The votes chart names its reviewers as every admin page does (display name and short address).
		const names = await displayNames(db, insights.votesPerReviewer?.map((v) => v.reviewer) ?? []);
		return {
			insights,
			names,
			programs: filterChoices(programs, program, round),
			filter: { program, round: round?.toString() }
		};
	});
};
