import { allowlistCsv, pendingAllowlist } from '$lib/server/applications';
import { withDatabase } from '$lib/server/pages';
import type { RequestEvent, RequestHandler } from './$types';

/**
 * Anyone who is not an admin gets what /admin gives them: the 404 page of an unknown path, rendered
 * by SvelteKit itself, so neither status nor body tells that this download exists.
 */
function hidden(event: RequestEvent): Promise<Response> {
	return event.fetch('/admin', { headers: { accept: 'text/html' } });
}

export const GET: RequestHandler = async (event) => {
	if (!event.locals.member?.isAdmin) return hidden(event);
	const rows = await withDatabase((db) => pendingAllowlist(db));
	const day = new Date().toISOString().slice(0, 10);
	return new Response(allowlistCsv(rows), {
		headers: {
			'content-type': 'text/csv; charset=utf-8',
			'content-disposition': `attachment; filename="allowlist-pending-${day}.csv"`,
			'cache-control': 'no-store'
		}
	});
};

// Other methods: hidden from non-admins like GET; an admin is told what is allowed.
export const fallback: RequestHandler = async (event) => {
	if (!event.locals.member?.isAdmin) return hidden(event);
	return new Response('Method Not Allowed', { status: 405, headers: { allow: 'GET, HEAD' } });
};
