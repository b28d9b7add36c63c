import { parseTableQuery } from '$lib/server/applications/review-table';
import { applicationsCsv } from '$lib/server/applications/exports';
import { requireAdmin } from '$lib/server/auth/guards';
import { runtime, withDatabase } from '$lib/server/platform/runtime';
import type { RequestHandler } from './$types';

// src/hooks.ts already reroutes /admin/* to no route for non-admins; requireAdmin (a 404) is the second line.
export const GET: RequestHandler = async (event) => {
	requireAdmin(event);
	const query = parseTableQuery(event.url.searchParams);
	// Every matching row, streamed from one snapshot; a fault before the first byte is the usual 503.
	const csv = await withDatabase((_db, handle) =>
		applicationsCsv(handle, query, { quorum: runtime().config.reviewQuorum })
	);
	return new Response(csv, { headers: headers() });
};

// HEAD answers the headers without reading (GET's body would be read to the end and thrown away).
export const HEAD: RequestHandler = (event) => {
	requireAdmin(event);
	return new Response(null, { headers: headers() });
};

const headers = () => ({
	'content-type': 'text/csv; charset=utf-8',
	'content-disposition': `attachment; filename="applications-${new Date().toISOString().slice(0, 10)}.csv"`,
	'cache-control': 'no-store'
});

// Other methods: hidden from non-admins like GET; an admin is told what is allowed.
export const fallback: RequestHandler = (event) => {
	requireAdmin(event);
	return new Response('Method Not Allowed', { status: 405, headers: { allow: 'GET, HEAD' } });
};
