import { error, json } from '@sveltejs/kit';
import { bearerMatches } from '$lib/server/auth/bearer';
import { jsonErrorFrom } from '$lib/server/platform/http';
import { runtime, withDatabase } from '$lib/server/platform/runtime';
import { CRON_MAX_DURATION_SECONDS } from '$lib/server/webhooks/cron';
import { deliverDueWebhooks } from '$lib/server/webhooks/scheduled';
import type { RequestHandler } from './$types';

// adapter-vercel: the function's limit, which the run's claim budget stays below.
export const config = { maxDuration: CRON_MAX_DURATION_SECONDS };

const NO_STORE = { 'cache-control': 'no-store' };

/**
 * Vercel Cron's call (every minute, `Authorization: Bearer <CRON_SECRET>`): claims and sends due
 * webhook deliveries within the time budget and answers what it did. Anyone else, and every request
 * while CRON_SECRET is unset, gets the page of an unknown path: /api/cron is a hidden section
 * ($lib/platform/hidden-sections.ts) that src/hooks.ts reroutes to no route; the check here is a second lock.
 */
export const GET: RequestHandler = async (event) => {
	const { config, database, webhookEndpoints } = runtime();
	if (!bearerMatches(event.request.headers.get('authorization'), config.cronSecret)) error(404, 'Not Found');
	try {
		const report = await withDatabase(() =>
			deliverDueWebhooks({ database, endpoints: webhookEndpoints, webhooks: config.webhooks })
		);
		return json(report, { headers: NO_STORE });
	} catch (err) {
		return jsonErrorFrom(err, NO_STORE);
	}
};
