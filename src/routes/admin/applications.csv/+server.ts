import { parseTableQuery } from '$lib/server/applications/review-table';
import { applicationsCsv } from '$lib/server/applications/exports';
import { csvRoute } from '$lib/server/applications/csv-route';
import { runtime, withDatabase } from '$lib/server/platform/runtime';

// Every application the table's filters match (the table's own query string), streamed from one snapshot.
// An admin of some programmes gets their programmes' rows only (issue 59).
export const { GET, HEAD, fallback } = csvRoute(
	'applications',
	(event) => {
		const query = parseTableQuery(event.url.searchParams);
		const programIds = event.locals.member?.programIds;
		return withDatabase((_db, handle) =>
			applicationsCsv(handle, query, { quorum: runtime().config.reviewQuorum, programIds })
		);
	},
	true
);
