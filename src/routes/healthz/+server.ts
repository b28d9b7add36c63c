import { json } from '@sveltejs/kit';
import { sql } from 'drizzle-orm';
import { jsonErrorFrom } from '$lib/server/platform/http';
import { withDatabase } from '$lib/server/platform/runtime';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = async () => {
	try {
		await withDatabase((db) => db.execute(sql`select 1`));
	} catch (err) {
		return jsonErrorFrom(err, { 'cache-control': 'no-store' });
	}
	return json({ status: 'ok' }, { headers: { 'cache-control': 'no-store' } });
};
