// @ts-check
// One way to make a throw-away database on the Postgres server at TEST_DATABASE_URL, shared by the
// integration tests, the end-to-end tests and the benchmarks. Plain JavaScript so that bench/ (run
// by node without a build step) imports it as it is.
import { randomBytes } from 'node:crypto';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';

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

/**
 * A new, empty database on the server at `adminUrl`, migrated with the committed migrations (the way
 * `npm run db:migrate` does) unless `migrate: false`.
 * @param {string} adminUrl
 * @param {{ prefix?: string, migrate?: boolean }} [options]
 * @returns {Promise<ServerDatabase>}
 */
export async function createServerDatabase(adminUrl, options = {}) {
	const name = `${options.prefix ?? 'portal_test'}_${randomBytes(6).toString('hex')}`;
	await asAdmin(adminUrl, (sql) => sql.unsafe(`create database ${name}`));
	const url = new URL(adminUrl);
	url.pathname = `/${name}`;
	if (options.migrate ?? true) await migrateServerDatabase(url.toString());
	return {
		url: url.toString(),
		name,
		drop: () => asAdmin(adminUrl, (sql) => sql.unsafe(`drop database if exists ${name} with (force)`))
	};
}

/**
 * Applies the committed migrations in drizzle/ to the database at `url`.
 * @param {string} url
 */
export async function migrateServerDatabase(url) {
	const client = postgres(url, { max: 1, onnotice: () => {} });
	try {
		await migrate(drizzle(client), { migrationsFolder: 'drizzle' });
	} finally {
		await client.end();
	}
}
