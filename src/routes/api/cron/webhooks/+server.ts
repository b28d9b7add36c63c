import { json } from '@sveltejs/kit';
import { bearerMatches } from '$lib/server/auth/bearer';
import { jsonErrorFrom } from '$lib/server/platform/http';
import { runtime, withDatabase } from '$lib/server/platform/runtime';
import { CRON_MAX_DURATION_SECONDS } from '$lib/server/outbox/cron';
import { deliverDueNow } from '$lib/server/platform/deliveries';
import { releaseDueRounds } from '$lib/server/programs/release';
import { blobStoreOf } from '$lib/server/files/store';
import { sweepIfDue } from '$lib/server/files/sweep';
import type { RequestHandler } from './$types';
import { unknownPath } from '$lib/server/platform/not-found';

// adapter-vercel: the function's limit, which the run's claim budget stays below.
export const config = { maxDuration: CRON_MAX_DURATION_SECONDS };

const NO_STORE = { 'cache-control': 'no-store' };

/**
 * Vercel Cron's call (every minute, `Authorization: Bearer <CRON_SECRET>`): releases the rounds whose
 * `release_at` has come, then claims and sends due
 * outbox rows (webhooks, push, e-mail) within the time budget and, beside them, once an hour, sweeps the
 * stored files no row references (`files`: what it removed, null when it was not this run's turn; no
 * process lives between requests on Vercel to do it, files/sweep.ts), and answers what it did. Anyone else, and every request
 * while CRON_SECRET is unset, gets the page of an unknown path: /api/cron is a hidden section
 * ($lib/platform/hidden-sections.ts) that src/hooks.ts reroutes to no route; the check here is a second lock.
 */
export const GET: RequestHandler = async (event) => {
	const { config, database } = runtime();
	if (!bearerMatches(event.request.headers.get('authorization'), config.cronSecret)) unknownPath();
	try {
		// Rounds whose release_at has come are released first, so this run sends their held messages.
		await withDatabase((db) => releaseDueRounds(db));
		const [report, files] = await Promise.all([
			withDatabase(() => deliverDueNow(database, config)),
			sweepIfDue(database, blobStoreOf(config.files))
		]);
		return json({ ...report, files }, { headers: NO_STORE });
	} catch (err) {
		return jsonErrorFrom(err, NO_STORE);
	}
};
