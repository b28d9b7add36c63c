import type { RequestEvent, RequestHandler } from '@sveltejs/kit';
import { requireAdmin } from '../auth/guards';
import { jsonError, jsonErrorFrom } from '../platform/http';
import { runtime, withDatabase } from '../platform/runtime';
import { batchDownload } from './batch-download';
import type { Step } from './steps';

/**
 * GET and the other methods of /admin/batches/<step>.json: hidden from non-admins as every /admin path
 * is; an admin gets the Safe Transaction Builder file as a download, or a JSON error naming what is wrong.
 */
export function batchRoute(step: Step): { GET: RequestHandler; fallback: RequestHandler } {
	return {
		GET: async (event: RequestEvent) => {
			requireAdmin(event); // the second line: hooks already hide /admin/* from non-admins
			const headers = { 'cache-control': 'no-store' };
			let outcome;
			try {
				outcome = await withDatabase((db) => batchDownload(db, runtime().config, step, event.url.searchParams));
			} catch (err) {
				return jsonErrorFrom(err, headers); // the database's 503, as JSON
			}
			if (!outcome.ok) return jsonError(outcome.status, outcome.code, outcome.message, headers);
			return new Response(JSON.stringify(outcome.file, null, 2), {
				headers: {
					...headers,
					'content-type': 'application/json; charset=utf-8',
					'content-disposition': `attachment; filename="${outcome.filename}"`
				}
			});
		},
		fallback: (event: RequestEvent) => {
			requireAdmin(event);
			return new Response('Method Not Allowed', { status: 405, headers: { allow: 'GET, HEAD' } });
		}
	};
}
