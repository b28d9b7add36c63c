import { json } from '@sveltejs/kit';
import { sql } from 'drizzle-orm';
import { lastBackup } from '$lib/server/db/backups';
import { writesFailing } from '$lib/server/db/health';
import { jsonError, jsonErrorFrom } from '$lib/server/platform/http';
import { DATABASE_UNAVAILABLE, runtime, warnOutOfResources, withDatabase } from '$lib/server/platform/runtime';
import type { RequestHandler } from './$types';

const NO_STORE = { 'cache-control': 'no-store' };

export const GET: RequestHandler = async () => {
	try {
		await withDatabase((db) => db.execute(sql`select 1`));
	} catch (err) {
		return jsonErrorFrom(err, NO_STORE);
	}
	// Reads alone do not make a database healthy: a full disk fails every write (SQLSTATE class 53).
	const { config } = runtime();
	const folder = config.databaseUrl || config.pgliteDataDir.startsWith('memory://') ? null : config.pgliteDataDir;
	if (await writesFailing(folder)) {
		// The folder refuses a small write: said in the log as a request that met a full disk says it.
		warnOutOfResources('53100');
		const { code, message } = DATABASE_UNAVAILABLE;
		return jsonError(503, code, message, { ...NO_STORE, 'retry-after': '5' });
	}
	return json({ status: 'ok', lastBackupAt: lastBackup()?.toISOString() ?? null }, { headers: NO_STORE });
};
