import { adminNotFound } from '$lib/server/auth/guards';
import { metricsAuthorized } from '$lib/server/platform/metrics';
import { runtime } from '$lib/server/platform/runtime';
import { scrapeMetrics } from '$lib/server/insights/scrape';
import type { RequestHandler } from './$types';

/** Prometheus scrape: only with `Authorization: Bearer <METRICS_TOKEN>`; anyone else gets the unknown-path 404. */
export const GET: RequestHandler = async (event) => {
	const { config, database } = runtime();
	if (!metricsAuthorized(event.request.headers.get('authorization'), config.metricsToken)) return adminNotFound(event);
	const { body, contentType } = await scrapeMetrics(database);
	return new Response(body, { headers: { 'content-type': contentType, 'cache-control': 'no-store' } });
};

/** Any other method: the same unknown-path 404, so the scrape endpoint's existence stays hidden. */
export const fallback: RequestHandler = (event) => adminNotFound(event);
