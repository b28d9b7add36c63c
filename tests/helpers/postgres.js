// @ts-check
// One way to make a throw-away database on the Postgres server at TEST_DATABASE_URL, shared by the
// integration tests, the end-to-end tests and the benchmarks. Plain JavaScript so that bench/ (run
// by node without a build step) imports it as it is.
//
// Migrate once, copy many times (as epic-stack's tests/setup/global-setup.ts does): the first database
// asked for migrates a template database, `portal_template_<hash of the migrations>`; every migrated
// database after that, in any process and any later run, is `CREATE DATABASE ... TEMPLATE` of it (about
// a tenth of the time of migrating). A change to a migration changes the hash, so a stale template is
// never used (tests/helpers/schema-hash.js).
import { randomBytes } from 'node:crypto';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { applyDomainSqlWithPostgresJs } from '../../scripts/domain-sql.js';
import { schemaHash } from './schema-hash.js';

/**
 * @typedef {object} ServerDatabase
 * @property {string} url  the new database's URL on the same server
 * @property {string} name  its name (what pg_stat_activity.datname shows for its connections)
 * @property {() => Promise<void>} drop  removes it, closing any connection still open to it
 */

/** @param {string} adminUrl @param {(sql: postgres.Sql) => Promise<unknown>} work */
async function asAdmin(adminUrl, work) {
	const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
	try {
		await work(admin);
	} finally {
		await admin.end();
	}
}

/** @param {string} adminUrl @param {string} name @returns {string} the URL of database `name` on that server */
function databaseUrl(adminUrl, name) {
	const url = new URL(adminUrl);
	url.pathname = `/${name}`;
	return url.toString();
}

/** SQLSTATE 55006: a database has another session (a connection just closed may take a moment to go). */
async function whileInUse(/** @type {() => Promise<unknown>} */ work) {
	for (let attempt = 1; ; attempt++) {
		try {
			return await work();
		} catch (err) {
			if (attempt >= 50 || /** @type {{ code?: string }} */ (err).code !== '55006') throw err;
			await new Promise((resolve) => setTimeout(resolve, 100));
		}
	}
}

/** Any number, the same in every process: the key of the advisory lock held while a template is made. */
const TEMPLATE_LOCK = 5_611_056;

/** @type {Map<string, Promise<string>>} */
const templates = new Map();

/**
 * The name of the migrated template database on the server at `adminUrl`, made (once for every process
 * and run, under an advisory lock) if it does not exist yet.
 * @param {string} adminUrl
 * @returns {Promise<string>}
 */
export function templateDatabase(adminUrl) {
	const key = databaseUrl(adminUrl, '');
	let pending = templates.get(key);
	if (!pending) {
		pending = makeTemplate(adminUrl);
		pending.catch(() => templates.delete(key));
		templates.set(key, pending);
	}
	return pending;
}

/** @param {string} adminUrl */
async function makeTemplate(adminUrl) {
	const name = `portal_template_${schemaHash()}`;
	await asAdmin(adminUrl, async (sql) => {
		await sql`select pg_advisory_lock(${TEMPLATE_LOCK})`;
		try {
			if ((await sql`select 1 from pg_database where datname = ${name}`).length) return;
			// Built under another name and renamed when complete: a run stopped halfway leaves no half template.
			const building = `${name}_building`;
			await sql.unsafe(`drop database if exists ${building} with (force)`);
			await sql.unsafe(`create database ${building}`);
			await migrateServerDatabase(databaseUrl(adminUrl, building));
			await whileInUse(() => sql.unsafe(`alter database ${building} rename to ${name}`));
		} finally {
			await sql`select pg_advisory_unlock(${TEMPLATE_LOCK})`;
		}
	});
	return name;
}

/**
 * A new database on the server at `adminUrl`: migrated with the committed migrations (a copy of the
 * migrated template, the same schema `npm run db:migrate` makes), or empty with `migrate: false`.
 * @param {string} adminUrl
 * @param {{ prefix?: string, migrate?: boolean }} [options]
 * @returns {Promise<ServerDatabase>}
 */
export async function createServerDatabase(adminUrl, options = {}) {
	const name = `${options.prefix ?? 'portal_test'}_${randomBytes(6).toString('hex')}`;
	const template = (options.migrate ?? true) ? await templateDatabase(adminUrl) : null;
	await asAdmin(adminUrl, (sql) =>
		whileInUse(() => sql.unsafe(`create database ${name}${template ? ` template ${template}` : ''}`))
	);
	return {
		url: databaseUrl(adminUrl, name),
		name,
		drop: () => asAdmin(adminUrl, (sql) => sql.unsafe(`drop database if exists ${name} with (force)`))
	};
}

/**
 * Applies the committed migrations in drizzle/ to the database at `url`, then the domains' functions and
 * triggers (as `npm run db:migrate` does).
 * @param {string} url
 */
export async function migrateServerDatabase(url) {
	const client = postgres(url, { max: 1, onnotice: () => {} });
	try {
		await migrate(drizzle(client), { migrationsFolder: 'drizzle' });
		await applyDomainSqlWithPostgresJs(client);
	} finally {
		await client.end();
	}
}
