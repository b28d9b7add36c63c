import { bearerMatches } from '$lib/server/auth/bearer';
import { runtime } from '$lib/server/platform/runtime';
import { scrapeMetrics } from '$lib/server/insights/scrape';
import type { RequestHandler } from './$types';
import { unknownPath } from '$lib/server/platform/not-found';

/**
 * Prometheus scrape. Without `Authorization: Bearer <METRICS_TOKEN>` the request never gets here:
 * /metrics is a hidden section (src/lib/platform/hidden-sections.ts) answered as an unknown path; this check
 * is the second line.
 */
export const GET: RequestHandler = async ({ request }) => {
	const { config, database } = runtime();
	if (!bearerMatches(request.headers.get('authorization'), config.metricsToken)) unknownPath();
	const { body, contentType } = await scrapeMetrics(database);
	return new Response(body, { headers: { 'content-type': contentType, 'cache-control': 'no-store' } });
};
