// Global setup of the integration and HTTP tests: the migrated templates (a PGlite dump, and a template
// database on the TEST_DATABASE_URL server when set) are made once, before any worker starts, so that
// two workers never migrate the same template at once. Each test database is then a copy
// (tests/helpers/db.ts, tests/helpers/postgres.js); without this setup the first one to ask makes them.
import { pgliteTemplate } from './pglite-template';
import { templateDatabase } from './postgres.js';

export default async function makeTemplates(): Promise<void> {
	const url = process.env.TEST_DATABASE_URL;
	await Promise.all([pgliteTemplate(), url ? templateDatabase(url) : null]);
}
