import { json } from '@sveltejs/kit';
import { programsJson } from '$lib/server/programs/rounds';
import { runtime, withDatabase } from '$lib/server/platform/runtime';
import type { RequestHandler } from './$types';

/** Public: what a community's own site shows of its programmes; a round that opens shows within a minute. */
export const GET: RequestHandler = async () =>
	json(await withDatabase((db) => programsJson(db, runtime().config.communityTimeZone)), {
		headers: { 'cache-control': 'public, max-age=30' }
	});
