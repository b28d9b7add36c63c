// @ts-check
// `npm run db:restore -- FILE [--to postgres://...]`: a backup of db:backup into an empty embedded
// folder (PGLITE_DATA_DIR or npm start's default) or an empty Postgres database, then every table's
// row count checked against the counts the backup carries (docs/operating.md, "Restore").
import { createReadStream, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { createGunzip } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { DataFolderHeldError, lockDataFolder } from '../src/lib/server/db/data-folder-lock.js';
import { readDumpHeader, tablesInOrder } from '../src/lib/server/db/dump.js';
import { pgliteOptions } from '../src/lib/server/db/embedded.js';
import { loadDotEnv, portalDataDir } from './portal-env.js';

/** @typedef {import('../src/lib/server/db/dump.js').Query} Query */

/** @param {string} file @returns {unknown} */
const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

/** @param {string} file */
const linesOf = (file) => createInterface({ input: createReadStream(file).pipe(createGunzip()), crlfDelay: Infinity });

/** The backup's header and counts, read to its end before anything is written. @param {string} file */
async function readBackup(file) {
	/** @type {string[]} */
	const head = [];
	let last = '';
	for await (const line of linesOf(file)) {
		if (head.length < 2) head.push(line);
		if (line.trim() !== '') last = line;
	}
	return readDumpHeader([...head, last]);
}

/**
 * Loads the backup's statements in one transaction, with the tables' own triggers off: the insights
 * rollups arrive as data and nothing is counted twice (docs/decisions/0032-insights-rollup.md).
 * @param {Query} query inside a transaction
 * @param {string} file
 */
async function load(query, file) {
	const tables = (await tablesInOrder(query)).map(({ name }) => `"${name}"`);
	for (const table of tables) await query(`alter table ${table} disable trigger user`);
	// Rows a migration seeded make way for the backup's own.
	if (tables.length) await query(`truncate ${tables.join(', ')}`);
	for await (const line of linesOf(file)) if (line.trim() !== '' && !line.startsWith('--')) await query(line);
	for (const table of tables) await query(`alter table ${table} enable trigger user`);
}

/** @param {Query} query @param {Record<string, number>} counts */
async function compareCounts(query, counts) {
	const problems = [];
	for (const [table, expected] of Object.entries(counts)) {
		const [row] = await query(`select count(*)::int as n from "${table.replaceAll('"', '""')}"`);
		if (Number(row?.n) !== expected) problems.push(`${table}: ${String(row?.n)} rows, the backup has ${expected}`);
	}
	return problems;
}

async function main() {
	loadDotEnv();
	const { values, positionals } = parseArgs({ options: { to: { type: 'string' } }, allowPositionals: true });
	const file = positionals[0];
	if (!file || positionals.length > 1) throw new Error('usage: npm run db:restore -- FILE [--to postgres://...]');
	const { migration, counts } = await readBackup(file);
	const journal = /** @type {{ entries: { when: number }[] }} */ (readJson('drizzle/meta/_journal.json'));
	const latest = Math.max(...journal.entries.map((e) => e.when));
	if (migration !== latest)
		throw new Error(
			`the backup was taken with schema ${migration}, this version of the portal has ${latest}: restore it with the version that took it, then upgrade (docs/operating.md, "Upgrades")`
		);

	/** @type {string[]} */
	let problems;
	if (values.to) {
		if (!/^postgres(ql)?:\/\//.test(values.to)) throw new Error('--to must be a postgres:// or postgresql:// URL');
		const sql = postgres(values.to, { max: 1, onnotice: () => {} });
		try {
			const [row] = await sql`select count(*)::int as n from pg_tables where schemaname in ('public', 'drizzle')`;
			const n = Number(row?.n);
			if (n > 0) throw new Error('the target database is not empty: restore into a new, empty database');
			await migratePostgres(drizzlePostgres(sql), { migrationsFolder: 'drizzle' });
			await sql.begin((tx) =>
				load(async (text) => /** @type {Record<string, unknown>[]} */ ([...(await tx.unsafe(text))]), file)
			);
			problems = await compareCounts(
				async (text) => /** @type {Record<string, unknown>[]} */ ([...(await sql.unsafe(text))]),
				counts
			);
		} finally {
			await sql.end({ timeout: 5 });
		}
	} else {
		const folder = path.resolve(process.env.PGLITE_DATA_DIR || path.join(portalDataDir(), 'pglite'));
		const lock = lockDataFolder(folder);
		try {
			const inside = readdirSync(folder).filter((name) => !name.startsWith('portal.lock'));
			if (inside.length > 0) throw new Error(`${folder} is not empty: restore into a new, empty folder`);
			console.log(`Creating the embedded database in ${folder} ...`);
			const pg = new PGlite(pgliteOptions(folder));
			try {
				await migratePglite(drizzlePglite(pg), { migrationsFolder: 'drizzle' });
				await pg.transaction((tx) =>
					load(async (text) => /** @type {{ rows: Record<string, unknown>[] }} */ (await tx.query(text)).rows, file)
				);
				problems = await compareCounts(
					async (text) => /** @type {{ rows: Record<string, unknown>[] }} */ (await pg.query(text)).rows,
					counts
				);
			} finally {
				await pg.close();
			}
		} finally {
			lock.release();
		}
	}
	if (problems.length) throw new Error(`the restored row counts differ from the backup's:\n  ${problems.join('\n  ')}`);
	const rows = Object.values(counts).reduce((a, b) => a + b, 0);
	console.log(
		`Restored ${rows} rows in ${Object.keys(counts).length} tables; every table's row count matches the backup.`
	);
}

main().catch((/** @type {unknown} */ err) => {
	if (err instanceof DataFolderHeldError) console.error(err.message);
	else console.error(`Restore failed: ${err instanceof Error ? err.message : String(err)}`);
	process.exitCode = 1;
});
