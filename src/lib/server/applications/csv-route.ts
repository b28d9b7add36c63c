import type { RequestEvent, RequestHandler } from '@sveltejs/kit';
import { requireAdmin as requireAdminOfAny, requireWholeAdmin } from '../auth/guards';

/**
 * GET, HEAD and the other methods of an /admin/*.csv export: hidden from non-admins as every /admin
 * path is (hooks reroute them; requireAdmin's 404 is the second line); GET streams `rows(event)` as a
 * dated download, HEAD answers the same headers without reading a row, any other method is 405.
 */
export function csvRoute(
	name: string,
	rows: (event: RequestEvent) => Promise<ReadableStream<Uint8Array>>,
	/** Whether an admin of some programmes may read it (their rows only: `rows` limits them); else 404 to them (issue 59). */
	scoped = false
): { GET: RequestHandler; HEAD: RequestHandler; fallback: RequestHandler } {
	const requireAdmin = scoped ? requireAdminOfAny : requireWholeAdmin;
	const headers = () => ({
		'content-type': 'text/csv; charset=utf-8',
		'content-disposition': `attachment; filename="${name}-${new Date().toISOString().slice(0, 10)}.csv"`,
		'cache-control': 'no-store'
	});
	return {
		GET: async (event) => {
			requireAdmin(event);
			// Every row, streamed from one snapshot; a fault before the first byte is the usual 503.
			return new Response(await rows(event), { headers: headers() });
		},
		HEAD: (event) => {
			requireAdmin(event);
			return new Response(null, { headers: headers() });
		},
		fallback: (event) => {
			requireAdmin(event);
			return new Response('Method Not Allowed', { status: 405, headers: { allow: 'GET, HEAD' } });
		}
	};
}
