import { json } from '@sveltejs/kit';
import { communityPulse } from '$lib/server/pulse/community-pulse';
import { jsonError } from '$lib/server/platform/http';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = async () => {
	const result = await communityPulse().get();
	// No repository configured: nothing to show, which is not a failure (docs/decisions/0025).
	if (!result.ok && result.code === 'not_configured')
		return new Response(null, { status: 204, headers: { 'cache-control': 'no-store' } });
	if (result.ok) return json(result.value, { headers: { 'cache-control': 'no-cache' } });
	// The body keeps the error contract; the issue list travels in a Link header for the home page.
	const headers: Record<string, string> = { 'cache-control': 'no-store' };
	if (result.retryAfterSeconds !== null) headers['retry-after'] = String(result.retryAfterSeconds);
	if (result.source) headers.link = `<${result.source}>; rel="alternate"; type="text/html"`;
	return jsonError(503, result.code, result.message, headers);
};
