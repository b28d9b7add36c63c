// @ts-check
// `npm run db:migrate`: applies the committed migrations in drizzle/ to the server at DATABASE_URL.
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { failureInWords } from './db-failure.js';
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
	console.log('Migrations applied.');
} catch (err) {
	// The driver's message names the problem; the URL (and any password in it) is never printed.
	console.error(`Migration failed: ${failureInWords(err, url)}`);
	process.exitCode = 1;
} finally {
	await client.end({ timeout: 5 });
}
