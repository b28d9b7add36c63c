// The functions and triggers each domain keeps in src/lib/server/<domain>/triggers.sql (docs/data.md,
// "Functions and triggers"): a database migrated from scratch runs exactly the files' definitions (so a
// migration that changes one without its file fails here), every function and trigger of the schema is
// in exactly one file, re-applying them changes nothing, and a changed file is applied at the next start.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Database } from '../../src/lib/server/db/client';
import { DOMAIN_SQL_ORDER, DOMAIN_SQL_TABLE, statementsOf } from '../../src/lib/server/db/domain-sql.js';
import { pgliteOptions } from '../../src/lib/server/db/embedded.js';
import { applyDomainSqlTo, applyMigrations, domainSqlFiles } from '../../src/lib/server/db/migrate';
import { rowsOf } from '../../src/lib/server/db/rows';
import { readDomainSqlFiles } from '../../scripts/domain-sql.js';
import { createTestDatabase, engines, requireServerUrl, type Engine, type TestDatabase } from '../helpers/db';
import { SEED_SQL, VOTES_SQL } from '../helpers/insights-seed';
import { migrationsBefore } from '../helpers/migrations-before';
import { createServerDatabase } from '../helpers/postgres.js';

interface Definitions {
	functions: Map<string, string>;
	triggers: Map<string, string>;
}

/** Every function and trigger of the public schema (not an extension's) as PostgreSQL prints it back. */
async function definitions(db: Database): Promise<Definitions> {
	const functions = rowsOf<{ key: string; def: string }>(
		await db.execute(sql`select p.oid::regprocedure::text as key, pg_get_functiondef(p.oid) as def
			from pg_proc p join pg_namespace n on n.oid = p.pronamespace
			where n.nspname = 'public' and p.prokind = 'f'
				and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')`)
	);
	const triggers = rowsOf<{ key: string; def: string }>(
		await db.execute(sql`select t.tgname || ' on ' || c.relname as key, pg_get_triggerdef(t.oid) as def
			from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace
			where n.nspname = 'public' and not t.tgisinternal`)
	);
	return {
		functions: new Map(functions.map((r) => [r.key, r.def])),
		triggers: new Map(triggers.map((r) => [r.key, r.def]))
	};
}

/**
 * The functions (name/number of arguments) and triggers (name on table) a file's statements create: a
 * CREATE OR REPLACE FUNCTION or TRIGGER, or a call of create_statement_triggers (platform/triggers.sql),
 * which creates a table's four <prefix>_inserted, _updated, _deleted and _truncated triggers.
 */
function namedIn(text: string): string[] {
	return statementsOf(text).flatMap((statement) => {
		const body = statement.replace(/^\s*--.*$/gm, '').trim();
		const fn = /^CREATE OR REPLACE FUNCTION (\w+)\s*\(([^)]*)\)/i.exec(body);
		if (fn) {
			const args = fn[2]!.replace(/'[^']*'/g, "''").split(',');
			return [`function ${fn[1]}/${args.filter((a) => a.trim()).length}`];
		}
		// A constraint trigger has no CREATE OR REPLACE: the file drops it first (a DROP names nothing).
		if (/^DROP TRIGGER IF EXISTS \w+ ON \w+;?$/i.test(body)) return [];
		const trigger = /^CREATE (?:OR REPLACE |CONSTRAINT )TRIGGER "?(\w+)"?[\s\S]*?\bON "?(\w+)"?/i.exec(body);
		if (trigger) return [`trigger ${trigger[1]} on ${trigger[2]}`];
		const four =
			/^SELECT create_statement_triggers\('(\w+)',\s*'(\w+)',\s*'\w+',\s*'\w+'(?:,\s*'\{(\w+),(\w+),(\w+),(\w+)\}')?\);$/i.exec(
				body
			);
		if (four) {
			const suffixes = four[3] ? four.slice(3, 7) : ['inserted', 'updated', 'deleted', 'truncated'];
			// A NULL suffix leaves that trigger to the file (a constraint trigger, below).
			return suffixes
				.filter((suffix) => suffix !== 'NULL')
				.map((suffix) => `trigger ${four[2]}_${suffix} on ${four[1]}`);
		}
		throw new Error(`not a CREATE OR REPLACE FUNCTION or TRIGGER, nor create_statement_triggers: ${body.slice(0, 80)}`);
	});
}

/** The same names from the database's definitions. */
function namedInDatabase({ functions, triggers }: Definitions): string[] {
	return [
		...[...functions.keys()].map((key) => {
			const [, name, args] = /^(\w+)\((.*)\)$/.exec(key)!;
			return `function ${name}/${args ? args.split(',').length : 0}`;
		}),
		...[...triggers.keys()].map((key) => `trigger ${key}`)
	];
}

/** A digest of every row of every table of the public schema. */
async function everyRow(db: Database): Promise<Record<string, string>> {
	const tables = rowsOf<{ name: string }>(
		await db.execute(sql`select tablename as name from pg_tables where schemaname = 'public' order by 1`)
	);
	const digest: Record<string, string> = {};
	for (const { name } of tables) {
		const [row] = rowsOf<{ d: string }>(
			await db.execute(
				sql.raw(
					`select count(*) || ':' || md5(coalesce(string_agg(t::text, E'\\n' order by t::text), '')) as d from "${name}" t`
				)
			)
		);
		digest[name] = row!.d;
	}
	return digest;
}

/** Runs a text of several statements (the seeds) on a test database. */
async function runMany(database: TestDatabase, text: string): Promise<void> {
	if (database.engine === 'pglite') {
		await (database.db as unknown as { $client: PGlite }).$client.exec(text);
		return;
	}
	const client = postgres(database.url!, { max: 1, onnotice: () => {} });
	try {
		await client.unsafe(text).simple();
	} finally {
		await client.end();
	}
}

/** A database with the committed migrations only (drizzle's migrator, none of the domain files). */
async function migrationsOnly(engine: Engine): Promise<{ db: Database; close(): Promise<void> }> {
	if (engine === 'pglite') {
		const client = new PGlite(pgliteOptions('memory://'));
		const db = drizzlePglite(client) as unknown as Database;
		await migratePglite(db as never, { migrationsFolder: 'drizzle' });
		return { db, close: () => client.close() };
	}
	const database = await createServerDatabase(requireServerUrl(), { prefix: 'portal_domain_sql', migrate: false });
	const client = postgres(database.url, { max: 1, onnotice: () => {} });
	const db = drizzlePostgres(client) as unknown as Database;
	await migratePostgres(db as never, { migrationsFolder: 'drizzle' });
	return {
		db,
		async close() {
			await client.end();
			await database.drop();
		}
	};
}

describe('the domain files', () => {
	it('are the ones the build carries, one per domain of DOMAIN_SQL_ORDER, each function and trigger in one file', () => {
		expect(domainSqlFiles.map((f) => f.domain)).toEqual(DOMAIN_SQL_ORDER);
		// The server's copy (import.meta.glob) and what db:migrate reads from the folders are the same text.
		expect(readDomainSqlFiles()).toEqual(domainSqlFiles);
		const names = domainSqlFiles.flatMap((f) => namedIn(f.sql));
		expect(names.filter((name, i) => names.indexOf(name) !== i)).toEqual([]);
	});
});

describe.each(engines)('functions and triggers on %s', (engine) => {
	let fromMigrations: Definitions;
	let fromFiles: Definitions;
	let database: TestDatabase;

	beforeAll(async () => {
		const bare = await migrationsOnly(engine);
		try {
			fromMigrations = await definitions(bare.db);
			expect(await applyDomainSqlTo(bare.db)).toBe(true);
			fromFiles = await definitions(bare.db);
		} finally {
			await bare.close();
		}
		database = await createTestDatabase(engine);
	}, 120_000);
	afterAll(() => database?.drop());

	it('a database migrated from scratch holds exactly the definitions of the files', () => {
		// A migration that changed a function or trigger without its domain file differs here.
		expect(fromFiles.functions.size).toBeGreaterThan(30);
		expect(fromFiles.triggers.size).toBeGreaterThan(40);
		expect(Object.fromEntries(fromFiles.functions)).toEqual(Object.fromEntries(fromMigrations.functions));
		expect(Object.fromEntries(fromFiles.triggers)).toEqual(Object.fromEntries(fromMigrations.triggers));
	});

	it('every function and trigger of the schema is in a file, and every one of the files is in the schema', () => {
		const inFiles = domainSqlFiles.flatMap((f) => namedIn(f.sql)).sort();
		expect(namedInDatabase(fromMigrations).sort()).toEqual(inFiles);
	});

	it("the tests' migrated template (as the server starts it) holds the files' definitions and their hash", async () => {
		const defs = await definitions(database.db);
		expect(Object.fromEntries(defs.functions)).toEqual(Object.fromEntries(fromFiles.functions));
		expect(Object.fromEntries(defs.triggers)).toEqual(Object.fromEntries(fromFiles.triggers));
		expect(await applyDomainSqlTo(database.db)).toBe(false);
	});

	it('re-applying the files changes no definition and no row, and the rollups keep counting', async () => {
		await runMany(database, SEED_SQL + VOTES_SQL);
		const before = await everyRow(database.db);
		expect(before.insights_applications).not.toMatch(/^0:/);
		expect(before.application_votes).toMatch(/^4:/);

		await database.db.execute(sql.raw(`delete from ${DOMAIN_SQL_TABLE}`));
		expect(await applyDomainSqlTo(database.db)).toBe(true);
		expect(await applyDomainSqlTo(database.db)).toBe(false);
		expect(await everyRow(database.db)).toEqual(before);
		const defs = await definitions(database.db);
		expect(Object.fromEntries(defs.functions)).toEqual(Object.fromEntries(fromFiles.functions));
		expect(Object.fromEntries(defs.triggers)).toEqual(Object.fromEntries(fromFiles.triggers));

		// The triggers still fire for a row seeded in plain SQL: a vote moves the application's tally.
		const tally = async () =>
			rowsOf<{ n: number }>(
				await database.db.execute(
					sql`select votes_current as n from applications where id = '00000000-0000-4000-8000-000000000007'`
				)
			)[0]!.n;
		expect(await tally()).toBe(0);
		await database.db.execute(
			sql`insert into application_votes (application_id, reviewer_address, vote) values ('00000000-0000-4000-8000-000000000007', ${'0x' + 'a1'.padStart(40, '0')}, 'approve')`
		);
		expect(await tally()).toBe(1);
	});

	it('a changed file is applied (and only the change): the next call runs it, the one after skips', async () => {
		const marker = `-- changed ${Date.now()}`;
		const changed = domainSqlFiles.map((f) =>
			f.domain === 'insights'
				? {
						...f,
						sql: f.sql.replace(/(CREATE OR REPLACE FUNCTION insights_week\([^)]*\)[^$]*\$\$)/, `$1\n\t${marker}\n`)
					}
				: f
		);
		expect(changed.find((f) => f.domain === 'insights')!.sql).toContain(marker);
		try {
			expect(await applyDomainSqlTo(database.db, changed)).toBe(true);
			expect(await applyDomainSqlTo(database.db, changed)).toBe(false);
			const defs = await definitions(database.db);
			const week = [...defs.functions].find(([key]) => key.startsWith('insights_week('))![1];
			expect(week).toContain(marker);
		} finally {
			expect(await applyDomainSqlTo(database.db)).toBe(true);
		}
		const week = [...(await definitions(database.db)).functions].find(([key]) => key.startsWith('insights_week('))![1];
		expect(week).not.toContain(marker);
	});
});

describe('an embedded data folder', () => {
	let dir: string;
	beforeAll(() => {
		dir = mkdtempSync(path.join(tmpdir(), 'portal-domain-sql-'));
	});
	afterAll(() => rmSync(dir, { recursive: true, force: true }));

	it("gets the files' definitions back at the next start when its own differ (an older version's)", async () => {
		const first = createDb({ databaseUrl: null, pgliteDataDir: dir });
		await first.ready();
		// What a portal before the files' last change left: another body, and that change's hash.
		await first.db.execute(sql`create or replace function insights_week(t timestamptz) returns timestamptz
			language sql immutable as $$ select null::timestamptz $$`);
		await first.db.execute(sql.raw(`update ${DOMAIN_SQL_TABLE} set hash = 'older'`));
		const stale = (await definitions(first.db)).functions;
		await first.close();

		const second = createDb({ databaseUrl: null, pgliteDataDir: dir });
		try {
			await second.ready();
			const now = (await definitions(second.db)).functions;
			const key = [...now.keys()].find((k) => k.startsWith('insights_week('))!;
			expect(stale.get(key)).toContain('null::timestamptz');
			expect(now.get(key)).not.toContain('null::timestamptz');
			expect(await applyDomainSqlTo(second.db)).toBe(false);
		} finally {
			await second.close();
		}
	}, 120_000);
});

describe('only a database at the newest migration gets the files', () => {
	const hasHash = async (db: Database) =>
		rowsOf<{ n: number }>(
			await db.execute(
				sql`select count(*)::int as n from pg_tables where schemaname = 'drizzle' and tablename = 'portal_domain_sql'`
			)
		)[0]!.n === 1;

	it('one behind it (an older version left it) gets them once the remaining migrations are applied', async () => {
		const handle = createDb(
			{ databaseUrl: null, pgliteDataDir: 'memory://' },
			{ migrationsFolder: migrationsBefore(29) }
		);
		try {
			await handle.ready();
			const before = await definitions(handle.db);
			expect([...before.functions.keys()].some((k) => k.startsWith('reviewers_write('))).toBe(false);
			expect(await hasHash(handle.db)).toBe(false);
			expect(await applyDomainSqlTo(handle.db)).toBe(false);

			expect(await applyMigrations(handle.db, 'pglite', 'drizzle')).toBeGreaterThan(0);
			expect(await hasHash(handle.db)).toBe(true);
			expect(namedInDatabase(await definitions(handle.db)).sort()).toEqual(
				domainSqlFiles.flatMap((f) => namedIn(f.sql)).sort()
			);
		} finally {
			await handle.close();
		}
	}, 120_000);

	it('one ahead of it (a newer version migrated it, an older one starts) keeps its definitions', async () => {
		const database = await createTestDatabase('pglite');
		try {
			await database.db.execute(
				sql.raw(
					`insert into drizzle.__drizzle_migrations (hash, created_at) select 'newer', max(created_at) + 1 from drizzle.__drizzle_migrations`
				)
			);
			await database.db.execute(sql.raw(`update ${DOMAIN_SQL_TABLE} set hash = 'newer'`));
			expect(await applyDomainSqlTo(database.db)).toBe(false);
			const [row] = rowsOf<{ hash: string }>(
				await database.db.execute(sql.raw(`select hash from ${DOMAIN_SQL_TABLE}`))
			);
			expect(row!.hash).toBe('newer');
		} finally {
			await database.drop();
		}
	}, 120_000);
});
