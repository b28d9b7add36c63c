// @ts-check
// `npm run db:restore -- FILE [--to postgres://...] [--key KEYFILE]`: a backup of db:backup into an
// empty embedded folder (PGLITE_DATA_DIR or npm start's default) or an empty Postgres database, then
// every table's row count checked against the counts the backup carries (docs/operating.md,
// "Restore"). All or nothing: on a Postgres server everything (the migrations too) happens in one
// transaction; an embedded database is made in a folder beside the target and moved in only once it
// checks out. A failure leaves the target as empty as it was, and says why in one line. The files the
// backup carries go to FILES_DIR once the database is restored (none when S3 is configured).
import {
	accessSync,
	appendFileSync,
	constants,
	existsSync,
	mkdirSync,
	readFileSync,
	readdirSync,
	renameSync,
	rmSync,
	statSync
} from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { backupLines, readBackup } from '../src/lib/server/db/backup.js';
import { isEncryptedBackup, readBackupKey } from '../src/lib/server/db/backup-crypt.js';
import { LOCK_FILE, lockDataFolder } from '../src/lib/server/db/data-folder-lock.js';
import { FILE_LINE, storedFile, tablesInOrder } from '../src/lib/server/db/dump.js';
import { pgliteOptions } from '../src/lib/server/db/embedded.js';
import { endWithFailure } from './db-failure.js';
import { applyDomainSqlFromFolders, applyDomainSqlWithPostgresJs } from './domain-sql.js';
import { giveBack, ownerToKeep } from './folder-owner.js';
import { filesFolder, loadDotEnv, portalDataDir } from './portal-env.js';

/** @typedef {import('../src/lib/server/db/dump.js').Query} Query */

/** @param {string} file @returns {unknown} */
const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

/**
 * The backup's files, written under FILES_DIR's `.incoming/restore-<pid>` as their lines go by, moved
 * into place (`<first two hex>/<sha256>`, as the server stores them) only once the database is restored:
 * a failed restore leaves FILES_DIR as it was. Bytes already there (the same hash) stay as they are.
 * readBackup has checked every file's bytes against its name before anything is written.
 * @param {string | null} dir FILES_DIR, or null when the files are in S3 (then nothing is written)
 */
function fileStager(dir) {
	const staging = dir ? path.join(dir, '.incoming', `restore-${process.pid}`) : null;
	const existed = dir !== null && existsSync(dir);
	/** @type {Set<string>} */
	const staged = new Set();
	let placed = false;
	// A failed restore takes back a FILES_DIR it made; once the files are in place, only the staging goes.
	const discard = () => {
		if (!dir || !staging) return;
		rmSync(placed || existed ? staging : dir, { recursive: true, force: true });
	};
	return {
		/** @param {string} line @returns {boolean} whether it was a file line */
		add(line) {
			if (!line.startsWith(FILE_LINE)) return false;
			if (!staging) return true;
			const [sha256, base64] = line.slice(FILE_LINE.length).split(' ');
			if (!staged.size) mkdirSync(staging, { recursive: true, mode: 0o700 });
			appendFileSync(path.join(staging, /** @type {string} */ (sha256)), Buffer.from(base64 ?? '', 'base64'), {
				mode: 0o600
			});
			staged.add(/** @type {string} */ (sha256));
			return true;
		},
		/** Into place; how many files. */
		commit() {
			if (!dir || !staging) return 0;
			placed = true;
			for (const sha256 of staged) {
				const target = storedFile(dir, sha256);
				if (existsSync(target)) continue;
				mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
				renameSync(path.join(staging, sha256), target);
			}
			discard();
			return staged.size;
		},
		discard
	};
}

/**
 * Loads the backup's statements with the tables' own triggers off (the insights rollups arrive as data
 * and nothing is counted twice: docs/decisions/0032-insights-rollup.md), then compares every table's
 * row count with the backup's; throws on a difference, inside the caller's transaction.
 * @param {Query} query inside a transaction
 * @param {string} file
 * @param {Buffer | null} key
 * @param {Record<string, number>} counts
 * @param {ReturnType<typeof fileStager>} files
 */
async function load(query, file, key, counts, files) {
	const tables = (await tablesInOrder(query)).map(({ name }) => `"${name}"`);
	for (const table of tables) await query(`alter table ${table} disable trigger user`);
	// Rows a migration seeded make way for the backup's own.
	if (tables.length) await query(`truncate ${tables.join(', ')}`);
	for await (const line of backupLines(file, key))
		if (!files.add(line) && line.trim() !== '' && !line.startsWith('--')) await query(line);
	for (const table of tables) await query(`alter table ${table} enable trigger user`);
	const problems = [];
	for (const [table, expected] of Object.entries(counts)) {
		const [row] = await query(`select count(*)::int as n from "${table.replaceAll('"', '""')}"`);
		if (Number(row?.n) !== expected) problems.push(`${table}: ${String(row?.n)} rows, the backup has ${expected}`);
	}
	if (problems.length)
		throw new Error(`the restored row counts differ from the backup's (${problems.join('; ')}); nothing was kept`);
}

/**
 * Into an empty Postgres database, in one transaction: the migrations (drizzle's migrator, given the
 * transaction as its client: its own transaction becomes a savepoint), the rows, the count check.
 * @param {string} url
 * @param {string} file
 * @param {Buffer | null} key
 * @param {Record<string, number>} counts
 * @param {ReturnType<typeof fileStager>} files
 */
async function restoreToPostgres(url, file, key, counts, files) {
	const sql = postgres(url, { max: 1, onnotice: () => {} });
	try {
		const [row] = await sql`select count(*)::int as n from pg_tables where schemaname in ('public', 'drizzle')`;
		if (Number(row?.n) > 0) throw new Error('the target database is not empty: restore into a new, empty database');
		await sql.begin(async (tx) => {
			// What drizzle's driver reads of a client (its options) and uses for its transaction (begin): the savepoint.
			const client = Object.assign(tx, { begin: tx.savepoint.bind(tx), options: sql.options });
			await migratePostgres(drizzlePostgres(/** @type {postgres.Sql} */ (/** @type {unknown} */ (client))), {
				migrationsFolder: 'drizzle'
			});
			await applyDomainSqlWithPostgresJs(/** @type {postgres.Sql} */ (/** @type {unknown} */ (client)));
			await load(
				async (text) => /** @type {Record<string, unknown>[]} */ ([...(await tx.unsafe(text))]),
				file,
				key,
				counts,
				files
			);
		});
	} finally {
		await sql.end({ timeout: 5 });
	}
}

/**
 * Into an empty embedded folder: made whole in a folder beside it, moved in once it checks out.
 * @param {string} folder
 * @param {string} file
 * @param {Buffer | null} key
 * @param {Record<string, number>} counts
 * @param {ReturnType<typeof fileStager>} files
 */
async function restoreToFolder(folder, file, key, counts, files) {
	const existed = statSync(folder, { throwIfNoEntry: false }) !== undefined;
	const owner = ownerToKeep(folder);
	const lock = lockDataFolder(folder);
	const building = `${folder}.restoring-${process.pid}`;
	const discard = () => rmSync(building, { recursive: true, force: true });
	process.once('exit', discard);
	try {
		const inside = readdirSync(folder).filter((name) => !name.startsWith(LOCK_FILE));
		if (inside.length > 0) throw new Error(`${folder} is not empty: restore into a new, empty folder`);
		console.log(`Restoring into ${folder} ...`);
		mkdirSync(building, { mode: 0o700 });
		const pg = new PGlite(pgliteOptions(building));
		try {
			await migratePglite(drizzlePglite(pg), { migrationsFolder: 'drizzle' });
			/** @param {{ query: PGlite['query'] }} on */
			const execOn = (on) => async (/** @type {string} */ text) =>
				/** @type {{ rows: Record<string, unknown>[] }} */ (await on.query(text)).rows;
			await applyDomainSqlFromFolders(execOn(pg), (work) => pg.transaction((tx) => work(execOn(tx))));
			await pg.transaction((tx) =>
				load(
					async (text) => /** @type {{ rows: Record<string, unknown>[] }} */ (await tx.query(text)).rows,
					file,
					key,
					counts,
					files
				)
			);
		} finally {
			await pg.close();
		}
		for (const name of readdirSync(building)) renameSync(path.join(building, name), path.join(folder, name));
	} catch (err) {
		// As empty as it was: a folder this command made goes too.
		if (!existed) rmSync(folder, { recursive: true, force: true });
		throw err;
	} finally {
		discard();
		lock.release();
		if (existsAfter(folder)) giveBack(folder, owner);
	}
}

/** @param {string} folder */
const existsAfter = (folder) => statSync(folder, { throwIfNoEntry: false }) !== undefined;

async function main() {
	loadDotEnv();
	const { values, positionals } = parseArgs({
		options: { to: { type: 'string' }, key: { type: 'string' } },
		allowPositionals: true
	});
	const file = positionals[0];
	if (!file || positionals.length > 1)
		throw new Error('usage: npm run db:restore -- FILE [--to postgres://...] [--key KEYFILE]');
	try {
		accessSync(file, constants.R_OK);
		if (!statSync(file).isFile()) throw new Error(`${file} is not a file`);
	} catch (err) {
		const code = /** @type {NodeJS.ErrnoException} */ (err).code;
		if (code === 'ENOENT') throw new Error(`there is no backup file ${file}`, { cause: err });
		if (code === 'EACCES') throw new Error(`${file} cannot be read (permission denied)`, { cause: err });
		throw err;
	}
	const encrypted = isEncryptedBackup(file);
	if (encrypted && !values.key) throw new Error(`${file} is encrypted: give its key file with --key KEYFILE`);
	const key = encrypted && values.key ? readBackupKey(values.key) : null;
	// Read to its end before anything is written: a file cut short, changed, or sealed with another key is refused here.
	const { migration, counts, portal, files } = await readBackup(file, key).catch((/** @type {unknown} */ err) => {
		throw new Error(`${file} is not a whole member-portal backup: ${err instanceof Error ? err.message : String(err)}`);
	});
	const journal = /** @type {{ entries: { when: number }[] }} */ (readJson('drizzle/meta/_journal.json'));
	const latest = Math.max(...journal.entries.map((e) => e.when));
	if (migration !== latest) {
		const taker = portal ? `member-portal ${portal.replace(/^member-portal /, '')}` : 'an older version of the portal';
		throw new Error(
			`the backup was taken by ${taker} (schema ${migration}); this version has schema ${latest}: restore it with the version that took it, then upgrade (docs/operating.md, "Restore, and restore drills")`
		);
	}

	const filesDir = filesFolder();
	const stager = fileStager(files.count ? filesDir : null);
	process.once('exit', stager.discard);
	const filesOwner = filesDir && files.count ? ownerToKeep(filesDir) : null;
	try {
		if (values.to) {
			if (!/^postgres(ql)?:\/\//.test(values.to)) throw new Error('--to must be a postgres:// or postgresql:// URL');
			await restoreToPostgres(values.to, file, key, counts, stager);
		} else {
			const folder = path.resolve(process.env.PGLITE_DATA_DIR || path.join(portalDataDir(), 'pglite'));
			await restoreToFolder(folder, file, key, counts, stager);
		}
	} catch (err) {
		stager.discard();
		throw err;
	}
	const placed = stager.commit();
	if (filesDir && placed) giveBack(filesDir, filesOwner);
	const rows = Object.values(counts).reduce((a, b) => a + b, 0);
	const carried = !files.count
		? ''
		: filesDir
			? ` ${files.count} files into ${filesDir}.`
			: ` The backup carries ${files.count} files; S3 is configured, so they were not restored (copy them into the bucket from a restore without the S3_ variables).`;
	console.log(
		`Restored ${rows} rows in ${Object.keys(counts).length} tables; every table's row count matches the backup.${carried}`
	);
}

main().catch(endWithFailure('Restore failed', process.argv.find((arg) => /^postgres(ql)?:\/\//.test(arg)) ?? null));
