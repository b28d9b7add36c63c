import { json } from '@sveltejs/kit';
import { sql } from 'drizzle-orm';
import { errorResponse } from '$lib/server/http';
import { useDb } from '$lib/server/runtime';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = async () => {
	try {
		const db = await useDb();
		await db.execute(sql`select 1`);
		return json({ status: 'ok' }, { headers: { 'cache-control': 'no-store' } });
	} catch (err) {
		return errorResponse(err, { 'cache-control': 'no-store' });
	}
};
