// @ts-check
// The functions and triggers each domain keeps beside its code (src/lib/server/<domain>/triggers.sql):
// the current definition of each, re-applied after the migrations so that what the database runs is
// always what those files say (docs/data.md, "Functions and triggers"). The migrations in drizzle/ are
// history; an existing database still upgrades through them, then gets the files' definitions.
//
// Plain JavaScript shared by the server (migrate.ts, which carries the files in its build through
// import.meta.glob), `npm run db:migrate` (scripts/migrate.js) and the tests' template databases.
import { createHash } from 'node:crypto';

/** The file each domain folder keeps its functions and triggers in. */
export const DOMAIN_SQL_FILE = 'triggers.sql';

/**
 * The domains with such a file, in the order they are applied (all in one transaction). A domain's file
 * may call another's functions (PL/pgSQL resolves them when run), so the order only matters for a
 * LANGUAGE sql function, whose body is checked when it is created: put the domain it calls first.
 */
export const DOMAIN_SQL_ORDER = ['platform', 'applications', 'programs', 'reviews', 'insights', 'team'];

/** Where the hash of the files last applied is kept (outside `public`, beside drizzle's own table). */
export const DOMAIN_SQL_TABLE = 'drizzle.portal_domain_sql';

/** Any number, the same in every process: taken while the files are applied, so two never apply at once. */
const DOMAIN_SQL_LOCK = 5_611_057;

/**
 * @typedef {object} DomainSqlFile
 * @property {string} domain  the folder under src/lib/server/
 * @property {string} sql  the file's text
 */

/**
 * The files in DOMAIN_SQL_ORDER from a map of domain → text; a file of a domain not in that order, or
 * a domain of the order without its file, is an error (so a new file cannot be silently left out).
 * @param {Record<string, string>} byDomain
 * @returns {DomainSqlFile[]}
 */
export function orderedDomainSql(byDomain) {
	const unknown = Object.keys(byDomain).filter((domain) => !DOMAIN_SQL_ORDER.includes(domain));
	if (unknown.length)
		throw new Error(
			`${unknown.join(', ')}: ${DOMAIN_SQL_FILE} of a domain missing from DOMAIN_SQL_ORDER (db/domain-sql.js)`
		);
	return DOMAIN_SQL_ORDER.map((domain) => {
		const sql = byDomain[domain];
		if (sql == null) throw new Error(`src/lib/server/${domain}/${DOMAIN_SQL_FILE} is missing`);
		return { domain, sql };
	});
}

/** @param {DomainSqlFile[]} files @returns {string} a hex hash of the files, names and order included */
export function domainSqlHash(files) {
	const hash = createHash('sha256');
	for (const { domain, sql } of files) hash.update(`${domain}\0${sql}\0`);
	return hash.digest('hex');
}

/**
 * The statements of a file: separated by `--> statement-breakpoint` lines, as in drizzle's migrations
 * (each is sent on its own; a part holding nothing but comments is skipped).
 * @param {string} sql
 * @returns {string[]}
 */
export function statementsOf(sql) {
	return sql
		.split(/^--> statement-breakpoint\s*$/m)
		.map((part) => part.trim())
		.filter((part) => part.replace(/^\s*--.*$/gm, '').trim() !== '');
}

/**
 * @typedef {(statement: string) => Promise<Record<string, unknown>[]>} Exec
 *   runs one statement (no parameters) and returns its rows
 * @typedef {<T>(work: (exec: Exec) => Promise<T>) => Promise<T>} InTransaction
 *   runs `work` in one transaction, committed when it resolves
 */

/**
 * Applies the files unless the database already holds exactly these (one read when nothing changed),
 * and only to a database whose newest applied migration is `newestMigration` (the `when` of the newest
 * entry of the journal the files go with): a database behind it (a folder of older migrations, as an
 * upgrade test makes) lacks what the files use, and one ahead of it (a newer version migrated it, and an
 * older one starts) keeps the newer version's definitions. Returns whether the files were applied.
 * @param {DomainSqlFile[]} files
 * @param {number} newestMigration
 * @param {Exec} exec  outside a transaction
 * @param {InTransaction} inTransaction
 * @returns {Promise<boolean>}
 */
export async function applyDomainSql(files, newestMigration, exec, inTransaction) {
	const hash = domainSqlHash(files);
	if ((await appliedHash(exec)) === hash) return false;
	const [newest] = await exec('select max(created_at)::text as newest from drizzle.__drizzle_migrations');
	if (Number(newest?.newest) !== newestMigration) return false;
	return inTransaction(async (tx) => {
		await tx(`select pg_advisory_xact_lock(${DOMAIN_SQL_LOCK})`);
		await tx(
			`create table if not exists ${DOMAIN_SQL_TABLE} (id integer primary key check (id = 1), hash text not null, applied_at timestamptz not null default now())`
		);
		const [row] = await tx(`select hash from ${DOMAIN_SQL_TABLE} where id = 1`);
		if (row?.hash === hash) return false;
		for (const file of files) for (const statement of statementsOf(file.sql)) await tx(statement);
		// The hash is hex digits only, so it is written as a literal.
		await tx(
			`insert into ${DOMAIN_SQL_TABLE} (id, hash) values (1, '${hash}') on conflict (id) do update set hash = excluded.hash, applied_at = now()`
		);
		return true;
	});
}

/** @param {Exec} exec @returns {Promise<string | null>} the hash stored by the last application, if any */
async function appliedHash(exec) {
	// Asked first rather than caught: an error would end the transaction a caller may run this in (db:restore).
	const [table] = await exec(`select to_regclass('${DOMAIN_SQL_TABLE}') is not null as present`);
	if (!table?.present) return null;
	const [row] = await exec(`select hash from ${DOMAIN_SQL_TABLE} where id = 1`);
	return typeof row?.hash === 'string' ? row.hash : null;
}
