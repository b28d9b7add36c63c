import { getLocale } from '$lib/paraglide/runtime';
import { requireAdmin } from '$lib/server/auth/guards';
import { readInsights } from '$lib/server/insights/insights';
import { displayNames } from '$lib/server/applications/display-names';
import { runtime, withDatabase } from '$lib/server/platform/runtime';
import { parseTableQuery } from '$lib/server/applications/review-table';
import { filterChoices, programChoices } from '$lib/server/programs/choices';
import type { PageServerLoad } from './$types';
import { unknownPath } from '$lib/server/platform/not-found';

export const load: PageServerLoad = async ({ locals, url }) => {
	const admin = requireAdmin({ locals, url });
	// The review table's programme and round filters (#57), read the same way.
	const query = parseTableQuery(url.searchParams);
	const { round } = query;
	let { program } = query;
	return withDatabase(async (db) => {
		// An admin of some programmes (issue 59): one of theirs (the first unless chosen), never the portal's
		// numbers nor another programme's (the unknown path's 404), and no check-ins (members', not a programme's).
		const scope = admin.programIds;
		const all = await programChoices(db, getLocale());
		const programs = scope ? all.filter((p) => scope.includes(p.id)) : all;
		if (scope) {
			program ??= programs[0]?.slug;
			if (!programs.some((p) => p.slug === program)) unknownPath();
		}
		const read = await readInsights(db, { program, round });
		const insights = scope ? { ...read, checkInsPerDay: [] } : read;
		// The votes chart names its reviewers as every admin page does (display name and short address).
		const names = await displayNames(db, runtime().chain.ens, insights.votesPerReviewer?.map((v) => v.reviewer) ?? []);
		return {
			insights,
			names,
			programs: filterChoices(programs, program, round),
			filter: { program, round: round?.toString() },
			limitedToPrograms: !!scope
		};
	});
};
