import { allowlistCsvStream } from '$lib/server/applications/exports';
import { requireAdmin } from '$lib/server/auth/guards';
import { withDatabase } from '$lib/server/platform/runtime';
import type { RequestHandler } from './$types';

// src/hooks.ts already reroutes /admin/* to no route for non-admins; requireAdmin (a 404) is the second line.
export const GET: RequestHandler = async (event) => {
	requireAdmin(event);
	// Every pending row, streamed from one snapshot as applications.csv is.
	const csv = await withDatabase((_db, handle) => allowlistCsvStream(handle));
	return new Response(csv, { headers: headers() });
};

// HEAD answers the headers without reading the rows.
export const HEAD: RequestHandler = (event) => {
	requireAdmin(event);
	return new Response(null, { headers: headers() });
};

const headers = () => ({
	'content-type': 'text/csv; charset=utf-8',
	'content-disposition': `attachment; filename="allowlist-pending-${new Date().toISOString().slice(0, 10)}.csv"`,
	'cache-control': 'no-store'
});

// Other methods: hidden from non-admins like GET; an admin is told what is allowed.
export const fallback: RequestHandler = (event) => {
	requireAdmin(event);
	return new Response('Method Not Allowed', { status: 405, headers: { allow: 'GET, HEAD' } });
};
