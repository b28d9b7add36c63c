import { UNMATCHED_PATH } from '$lib/platform/hidden-sections';
import { savedLogo } from '$lib/server/branding/settings';
import { withDatabase } from '$lib/server/platform/runtime';
import type { RequestHandler } from './$types';

// The community's logo as /admin/settings saved it, by its content hash: a new logo is a new URL, so each
// is cached for good. Bytes checked (and an SVG sanitised) when saved; never run as the portal's page. An
// unknown or replaced hash gets what an unknown path answers.
export const GET: RequestHandler = async ({ params, request, fetch }) => {
	const logo = await withDatabase((db) => savedLogo(db, params.sha256));
	if (!logo) return fetch(UNMATCHED_PATH, { headers: { accept: request.headers.get('accept') ?? '*/*' } });
	return new Response(logo.bytes as Uint8Array<ArrayBuffer>, {
		headers: {
			'content-type': logo.type,
			'content-length': String(logo.bytes.length),
			'x-content-type-options': 'nosniff',
			'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
			'cache-control': 'public, max-age=31536000, immutable'
		}
	});
};
