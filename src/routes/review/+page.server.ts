import { getLocale } from '$lib/paraglide/runtime';
import { requireReviewer } from '$lib/server/auth/guards';
import { withDatabase } from '$lib/server/platform/runtime';
import { anyPending, assignedTo, parseReviewQuery, reviewQueue } from '$lib/server/reviews/queue';
import { programChoices } from '$lib/server/programs/choices';
import type { PageServerLoad } from './$types';

// The reviewer's queue and their voted tab (hidden from everyone else like an unknown path).
export const load: PageServerLoad = async ({ locals, url }) => {
	const reviewer = requireReviewer({ locals });
	const query = parseReviewQuery(url.searchParams);
	const [page, assigned, pending, programs] = await withDatabase((db) =>
		Promise.all([
			reviewQueue(db, reviewer.address, query, undefined, reviewer.programIds),
			// "Assigned to you" heads the queue's first page (decision 0040).
			query.tab === 'queue' && !query.after
				? assignedTo(db, reviewer.address, undefined, reviewer.programIds)
				: Promise.resolve([]),
			// An empty queue says why: nothing submitted yet, or everything has the reviewer's vote (issue 61).
			query.tab === 'queue' && !query.after ? anyPending(db, reviewer.programIds) : Promise.resolve(true),
			programChoices(db, getLocale())
		])
	);
	// Each row names its programme once there is more than one (#57).
	const programNames = programs.length > 1 ? Object.fromEntries(programs.map((p) => [p.id, p.name])) : {};
	return { tab: query.tab, first: !query.after, page, assigned, pending, programNames, now: new Date().toISOString() };
};
