// A copy of drizzle/ holding the migrations before a given one: a database made with it stands where a
// portal of that version left it, so a test can write rows there and then apply the rest.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A migrations folder with every committed migration whose index is below `index`; returns its path. */
export function migrationsBefore(index: number): string {
	const journal = JSON.parse(readFileSync('drizzle/meta/_journal.json', 'utf8')) as {
		entries: { idx: number; tag: string }[];
	};
	const dir = mkdtempSync(path.join(tmpdir(), 'portal-migrations-'));
	mkdirSync(path.join(dir, 'meta'));
	const entries = journal.entries.filter((e) => e.idx < index);
	for (const e of entries) copyFileSync(path.join('drizzle', `${e.tag}.sql`), path.join(dir, `${e.tag}.sql`));
	writeFileSync(path.join(dir, 'meta', '_journal.json'), JSON.stringify({ ...journal, entries }));
	return dir;
}
