// @ts-check
// `npm run db:migrate`: applies the committed migrations in drizzle/ to the server at DATABASE_URL, then
// the domains' functions and triggers (src/lib/server/<domain>/triggers.sql) when they changed.
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { failureInWords } from './db-failure.js';
import { applyDomainSqlWithPostgresJs } from './domain-sql.js';
import { loadDotEnv } from './portal-env.js';

loadDotEnv();

const url = process.env.DATABASE_URL;
if (!url || !/^postgres(ql)?:\/\//.test(url)) {
	console.error('DATABASE_URL must be set to a postgres:// or postgresql:// URL (PGlite migrates itself at start).');
	process.exit(1);
}
const client = postgres(url, { max: 1, connect_timeout: 10, onnotice: () => {} });
try {
	await migrate(drizzle(client), { migrationsFolder: 'drizzle' });
	const applied = await applyDomainSqlWithPostgresJs(client);
	console.log(applied ? 'Migrations applied; functions and triggers updated.' : 'Migrations applied.');
} catch (err) {
	// The driver's message names the problem; the URL (and any password in it) is never printed.
	console.error(`Migration failed: ${failureInWords(err, url)}`);
	process.exitCode = 1;
} finally {
	await client.end({ timeout: 5 });
}
