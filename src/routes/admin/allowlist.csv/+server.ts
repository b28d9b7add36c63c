import { allowlistCsvStream } from '$lib/server/applications/exports';
import { csvRoute } from '$lib/server/applications/csv-route';
import { withDatabase } from '$lib/server/platform/runtime';

// Every pending row of an approved application, streamed from one snapshot as applications.csv is.
export const { GET, HEAD, fallback } = csvRoute('allowlist-pending', () =>
	withDatabase((_db, handle) => allowlistCsvStream(handle))
);
