import { error } from '@sveltejs/kit';
import { UUID } from '$lib/platform/limits';
import { UNMATCHED_PATH } from '$lib/platform/hidden-sections';
import { fileForViewer } from '$lib/server/files/access';
import { fileHeaders, PREVIEW_TYPES } from '$lib/server/files/serving';
import { blobStoreOf } from '$lib/server/files/store';
import { runtime, withDatabase } from '$lib/server/platform/runtime';
import type { RequestHandler } from './$types';

/**
 * GET /files/<id> (docs/http.md): a stored file, to its applicant, admins and reviewers only, always as an
 * attachment in a sandbox; `?preview` (images only) inline, for the reviewers' `<img>`. Anyone
 * else, and an unknown id, gets what an unknown path answers.
 */
export const GET: RequestHandler = async ({ params, locals, url, request, fetch }) => {
	const unknownPath = () => fetch(UNMATCHED_PATH, { headers: { accept: request.headers.get('accept') ?? '*/*' } });
	if (!UUID.test(params.id)) return unknownPath();
	const file = await withDatabase((db) => fileForViewer(db, params.id, locals.member));
	if (!file) return unknownPath();
	const preview = url.searchParams.has('preview') && PREVIEW_TYPES.has(file.contentType);
	let body: ReadableStream<Uint8Array> | null;
	try {
		body = await blobStoreOf(runtime().config.files).read(file.sha256);
	} catch {
		error(503, {
			code: 'files_unavailable',
			message: 'The file store cannot be reached just now. Try again in a few minutes.'
		});
	}
	// A row whose bytes are gone (removed by hand): nothing to send, as for an unknown id.
	if (!body) return unknownPath();
	return new Response(body, { headers: fileHeaders(file, preview) });
};
