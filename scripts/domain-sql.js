// @ts-check
// The domains' functions and triggers (src/lib/server/<domain>/triggers.sql) for what runs from the
// repository, not from a build: `npm run db:migrate` and the tests' template databases read the files
// themselves and apply them through postgres.js, as the server does through its build's copy
// (src/lib/server/db/domain-sql.js, migrate.ts).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyDomainSql, DOMAIN_SQL_FILE, orderedDomainSql } from '../src/lib/server/db/domain-sql.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SERVER = path.join(ROOT, 'src', 'lib', 'server');

/** @returns {import('../src/lib/server/db/domain-sql.js').DomainSqlFile[]} every domain's file, in order */
export function readDomainSqlFiles() {
	/** @type {Record<string, string>} */
	const byDomain = {};
	for (const entry of readdirSync(SERVER, { withFileTypes: true })) {
		const file = path.join(SERVER, entry.name, DOMAIN_SQL_FILE);
		if (entry.isDirectory() && existsSync(file)) byDomain[entry.name] = readFileSync(file, 'utf8');
	}
	return orderedDomainSql(byDomain);
}

/** @param {string} file @returns {unknown} */
const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

/** @returns {number} the `when` of the newest migration of drizzle/ */
function newestMigration() {
	const journal = /** @type {{ entries: { when: number }[] }} */ (
		readJson(path.join(ROOT, 'drizzle', 'meta', '_journal.json'))
	);
	return Math.max(...journal.entries.map((entry) => entry.when));
}

/**
 * Applies the domain files, read from the folders, to a migrated database when they changed.
 * @param {import('../src/lib/server/db/domain-sql.js').Exec} exec
 * @param {import('../src/lib/server/db/domain-sql.js').InTransaction} inTransaction
 * @returns {Promise<boolean>} whether they were applied
 */
export function applyDomainSqlFromFolders(exec, inTransaction) {
	return applyDomainSql(readDomainSqlFiles(), newestMigration(), exec, inTransaction);
}

/**
 * Applies the domain files to the (migrated) database of a postgres.js client when they changed.
 * @param {import('postgres').Sql} client
 * @returns {Promise<boolean>} whether they were applied
 */
export function applyDomainSqlWithPostgresJs(client) {
	/** @param {import('postgres').Sql | import('postgres').TransactionSql} sql */
	const execOn = (sql) => async (/** @type {string} */ statement) => [...(await sql.unsafe(statement))];
	return applyDomainSqlFromFolders(
		execOn(client),
		(work) => /** @type {Promise<any>} */ (client.begin((tx) => work(execOn(tx))))
	);
}
