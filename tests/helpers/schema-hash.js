// @ts-check
// What a migrated test database is made of, as one hash: the committed migrations (drizzle/), any SQL
// file under src/ (SQL a domain keeps beside its code) and the code that applies them. A template
// database or data folder named by this hash is reused only while none of them changed
// (tests/helpers/postgres.js, tests/helpers/pglite-template.ts).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The inputs: folders (every file in them, or only .sql files) and single files. */
const INPUTS = [
	{ at: 'drizzle', only: null },
	{ at: 'src', only: '.sql' },
	{ at: 'src/lib/server/db/migrate.ts', only: null },
	{ at: 'src/lib/server/db/domain-sql.js', only: null },
	{ at: 'scripts/domain-sql.js', only: null },
	{ at: 'src/lib/server/db/embedded.js', only: null },
	{ at: 'tests/helpers/postgres.js', only: null },
	{ at: 'package-lock.json', only: null }
];

/** @param {string} at @param {string | null} only @returns {string[]} files under `at`, relative to the root */
function filesUnder(at, only) {
	const full = path.join(ROOT, at);
	if (!existsSync(full)) return [];
	if (!statSync(full).isDirectory()) return [at];
	return readdirSync(full, { withFileTypes: true })
		.flatMap((entry) =>
			entry.isDirectory()
				? filesUnder(path.join(at, entry.name), only)
				: !only || entry.name.endsWith(only)
					? [path.join(at, entry.name)]
					: []
		)
		.sort();
}

/** @type {string | undefined} */
let memo;

/** A short hex hash of everything that makes a migrated database (computed once per process). */
export function schemaHash() {
	if (memo) return memo;
	const hash = createHash('sha256');
	for (const { at, only } of INPUTS)
		for (const file of filesUnder(at, only))
			hash
				.update(`${file}\0`)
				.update(readFileSync(path.join(ROOT, file)))
				.update('\0');
	memo = hash.digest('hex').slice(0, 16);
	return memo;
}
