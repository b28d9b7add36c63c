import { sql } from 'drizzle-orm';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import journal from '../../../../drizzle/meta/_journal.json';
import type { Database } from './client';
import { sqlState } from './errors';
import { rowsOf } from './rows';

const latestMigration = Math.max(...journal.entries.map((entry) => entry.when));

/** How many migrations the database has applied (0 before the first). */
async function appliedCount(db: Database): Promise<number> {
	try {
		const result = await db.execute(sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
		return Number(rowsOf<{ n: number }>(result)[0]?.n ?? 0);
	} catch (err) {
		if (['42P01', '3F000'].includes(sqlState(err) ?? '')) return 0;
		throw err;
	}
}

/** Applies the committed migrations under `migrationsFolder`; returns how many were new. */
export async function applyMigrations(
	db: Database,
	kind: 'postgres' | 'pglite',
	migrationsFolder: string
): Promise<number> {
	// The migrators share one shape; each only needs its own driver's database object.
	const migrate = (kind === 'pglite' ? migratePglite : migratePostgres) as (
		db: Database,
		config: { migrationsFolder: string }
	) => Promise<void>;
	const before = await appliedCount(db);
	await migrate(db, { migrationsFolder });
	return (await appliedCount(db)) - before;
}

/** True when the newest committed migration has been applied to this database. */
export async function isSchemaCurrent(db: Database): Promise<boolean> {
	try {
		const result = await db.execute(sql`select max(created_at)::text as latest from drizzle.__drizzle_migrations`);
		const latest = rowsOf<{ latest: string | null }>(result)[0]?.latest;
		return latest != null && Number(latest) >= latestMigration;
	} catch (err) {
		// 42P01: the migrations table does not exist yet; 3F000: nor does its schema.
		if (['42P01', '3F000'].includes(sqlState(err) ?? '')) return false;
		throw err;
	}
}
