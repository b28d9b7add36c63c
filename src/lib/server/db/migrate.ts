import { sql } from 'drizzle-orm';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import journal from '../../../../drizzle/meta/_journal.json';
import type { Database } from './client';
import { applyDomainSql, DOMAIN_SQL_FILE, orderedDomainSql, type DomainSqlFile } from './domain-sql.js';
import { sqlState } from './errors';
import { rowsOf } from './rows';

const latestMigration = Math.max(...journal.entries.map((entry) => entry.when));

// Each domain's functions and triggers (src/lib/server/<domain>/triggers.sql), as text carried in the
// build (no path into src/ at run time). Text only: the db folder imports no domain's code.
const domainSqlTexts = import.meta.glob<string>('/src/lib/server/*/triggers.sql', {
	query: '?raw',
	import: 'default',
	eager: true
});

/** The domain files in the order they are applied (db/domain-sql.js DOMAIN_SQL_ORDER). */
export const domainSqlFiles: DomainSqlFile[] = orderedDomainSql(
	Object.fromEntries(
		Object.entries(domainSqlTexts).map(([file, text]) => [
			file.slice('/src/lib/server/'.length, -`/${DOMAIN_SQL_FILE}`.length),
			text
		])
	)
);

/**
 * Applies `files` (each domain's functions and triggers) unless the database already holds exactly
 * these, or its newest migration is not this build's newest; returns whether it did.
 */
export function applyDomainSqlTo(db: Database, files: DomainSqlFile[] = domainSqlFiles): Promise<boolean> {
	const exec = async (statement: string) => rowsOf<Record<string, unknown>>(await db.execute(sql.raw(statement)));
	return applyDomainSql(files, latestMigration, exec, (work) =>
		db.transaction((tx) =>
			work(async (statement) => rowsOf<Record<string, unknown>>(await tx.execute(sql.raw(statement))))
		)
	);
}

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

/**
 * Applies the committed migrations under `migrationsFolder`, then the domains' functions and triggers
 * when they changed and the database stands at this build's newest migration (a folder of older
 * migrations, as an upgrade test makes, gets none: they are written for the newest schema). Returns how
 * many migrations were new.
 */
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
	await applyDomainSqlTo(db);
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
