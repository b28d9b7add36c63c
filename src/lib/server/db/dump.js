// @ts-check
// The portal's backup format (docs/operating.md, "Backups"): plain SQL, one statement per line, the
// data of every table on top of the schema the committed migrations make. The same code reads PGlite
// and a Postgres server, inside one snapshot, so a backup is consistent and restores on either.
// Plain JavaScript: the running server and the db:backup / db:restore scripts share it.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import path from 'node:path';

export const FORMAT = 'member-portal backup 1';
/** Rows per INSERT and per FETCH: bounded memory whatever the table's size. */
const BATCH = 500;
/**
 * The files of `file` answers (issue 58) ride in the dump as comment lines, which a restore's SQL
 * loop skips: `-- file: <sha256> <base64>`, each line at most FILE_CHUNK bytes of the file, in order.
 */
export const FILE_LINE = '-- file: ';
const FILE_CHUNK = 48 * 1024;
const SHA256 = /^[0-9a-f]{64}$/;

/** Where FILES_DIR keeps the bytes of `sha256` (src/lib/server/files/store.ts diskStore). @param {string} dir @param {string} sha256 */
export const storedFile = (dir, sha256) => path.join(dir, sha256.slice(0, 2), sha256);

/** @typedef {(text: string) => Promise<Record<string, unknown>[]>} Query */

/** @param {string} text @returns {unknown} */
const parseJson = (text) => JSON.parse(text);

/** @param {string} name */
const ident = (name) => `"${name.replaceAll('"', '""')}"`;

/**
 * The public tables, parents before children (by their foreign keys), with the columns a dump carries.
 * @param {Query} query
 * @returns {Promise<{ name: string, columns: string[] }[]>}
 */
export async function tablesInOrder(query) {
	const tables = await query(`select c.relname as name,
		(select coalesce(json_agg(a.attname order by a.attnum), '[]')::text from pg_attribute a
		  where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped and a.attgenerated = '') as columns,
		(select coalesce(json_agg(distinct p.relname), '[]')::text from pg_constraint f join pg_class p on p.oid = f.confrelid
		  where f.conrelid = c.oid and f.contype = 'f' and f.confrelid <> c.oid) as parents
		from pg_class c join pg_namespace n on n.oid = c.relnamespace
		where n.nspname = 'public' and c.relkind in ('r', 'p') order by c.relname`);
	/** @type {Map<string, { name: string, columns: string[], parents: string[] }>} */
	const byName = new Map(
		tables.map((t) => [
			String(t.name),
			{
				name: String(t.name),
				columns: /** @type {string[]} */ (parseJson(String(t.columns))),
				parents: /** @type {string[]} */ (parseJson(String(t.parents)))
			}
		])
	);
	/** @type {{ name: string, columns: string[] }[]} */
	const ordered = [];
	const placed = new Set();
	/** @param {string} name */
	const place = (name) => {
		const table = byName.get(name);
		if (!table || placed.has(name)) return;
		placed.add(name);
		table.parents.forEach(place);
		ordered.push({ name, columns: table.columns });
	};
	[...byName.keys()].forEach(place);
	return ordered;
}

/**
 * Writes a dump of the database `query` reads, line by line, to `write`. Call inside one
 * repeatable-read transaction. Returns the row count of each table (also written at the end).
 * @param {Query} query
 * @param {(line: string) => Promise<void> | void} write
 * @param {string} version the portal's version that takes it (scripts/portal-version.js): the code that restores it
 * @param {string | null} [filesDir] FILES_DIR, whose files of `application_files` the dump carries; null: none (S3 keeps its own)
 * @returns {Promise<Record<string, number>>}
 */
export async function writeDump(query, write, version, filesDir = null) {
	const [migration] = await query(
		`select coalesce(max(created_at), 0)::text as latest from drizzle.__drizzle_migrations`
	);
	await write(`-- ${FORMAT}`);
	await write(`-- migration: ${String(/** @type {string | undefined} */ (migration?.latest) ?? '0')}`);
	await write(`-- portal: member-portal ${version.replace(/[\r\n]/g, ' ')}`);
	await write(`-- taken: ${new Date().toISOString()}`);
	await write(`-- Restore with: npm run db:restore -- FILE [--to postgres://...] (docs/operating.md)`);
	/** @type {Record<string, number>} */
	const counts = {};
	for (const { name, columns } of await tablesInOrder(query)) {
		const list = columns.map(ident).join(', ');
		counts[name] = 0;
		await query(
			`declare portal_dump no scroll cursor for select row_to_json(x)::text as row from (select ${list} from ${ident(name)}) x`
		);
		for (;;) {
			const rows = await query(`fetch ${BATCH} from portal_dump`);
			if (rows.length === 0) break;
			counts[name] += rows.length;
			const json = `[${rows.map((r) => String(r.row)).join(',')}]`;
			// A dollar quote whose tag the data cannot contain: each statement stays on one line (JSON escapes newlines).
			let tag;
			do tag = `$d${randomBytes(6).toString('hex')}$`;
			while (json.includes(tag));
			await write(
				`INSERT INTO ${ident(name)} (${list}) OVERRIDING SYSTEM VALUE SELECT ${list} FROM json_populate_recordset(null::${ident(name)}, ${tag}${json}${tag});`
			);
		}
		await query('close portal_dump');
	}
	if (filesDir && counts.application_files) await writeFiles(query, write, filesDir);
	const sequences = await query(
		`select format('%I.%I', schemaname, sequencename) as name, last_value::text as value from pg_sequences where schemaname = 'public' and last_value is not null order by 1`
	);
	for (const { name, value } of sequences)
		await write(`SELECT pg_catalog.setval('${String(name).replaceAll("'", "''")}', ${Number(value)}, true);`);
	await write(`-- rows: ${JSON.stringify(counts)}`);
	return counts;
}

/**
 * Every file `application_files` names, once per hash, as FILE_LINE lines. A hash whose bytes are not in
 * the folder (removed by hand) is left out: its rows restore, and `/files/<id>` answers as for any
 * missing bytes.
 * @param {Query} query
 * @param {(line: string) => Promise<void> | void} write
 * @param {string} dir
 */
async function writeFiles(query, write, dir) {
	const hashes = await query('select distinct sha256 from application_files order by sha256');
	for (const { sha256 } of hashes) {
		const hash = String(sha256);
		const file = storedFile(dir, hash);
		if (!SHA256.test(hash) || !existsSync(file)) continue;
		for await (const piece of createReadStream(file, { highWaterMark: FILE_CHUNK })) {
			/** @type {unknown} */
			const chunk = piece;
			await write(`${FILE_LINE}${hash} ${/** @type {Buffer} */ (chunk).toString('base64')}`);
		}
	}
}

/**
 * Checks the files of a dump as its lines go by: `add` each line, then `done()` gives how many files
 * and bytes it carries, or throws when one's bytes do not hash to its name.
 */
export function fileLines() {
	/** @type {Map<string, { hash: import('node:crypto').Hash, bytes: number }>} */
	const seen = new Map();
	return {
		/** @param {string} line @returns {{ sha256: string, bytes: Buffer } | null} the file's next bytes, or null: not a file line */
		add(line) {
			if (!line.startsWith(FILE_LINE)) return null;
			const [sha256, base64] = line.slice(FILE_LINE.length).split(' ');
			if (!sha256 || !SHA256.test(sha256) || base64 === undefined)
				throw new Error('a file line of the backup is damaged');
			const bytes = Buffer.from(base64, 'base64');
			const entry = seen.get(sha256) ?? { hash: createHash('sha256'), bytes: 0 };
			entry.hash.update(bytes);
			entry.bytes += bytes.length;
			seen.set(sha256, entry);
			return { sha256, bytes };
		},
		done() {
			let bytes = 0;
			for (const [sha256, entry] of seen) {
				if (entry.hash.digest('hex') !== sha256) throw new Error(`the backup's file ${sha256} is damaged`);
				bytes += entry.bytes;
			}
			return { count: seen.size, bytes };
		}
	};
}

/** Lines at the head of a dump that readDumpHeader reads. */
export const HEADER_LINES = 3;

/**
 * Reads a dump's header and row counts: its first HEADER_LINES lines and its last.
 * @param {string[]} lines
 * @returns {{ migration: number, counts: Record<string, number>, portal: string | null }}
 */
export function readDumpHeader(lines) {
	if (lines[0] !== `-- ${FORMAT}`) throw new Error(`not a member-portal backup (its first line is not "-- ${FORMAT}")`);
	const migration = /^-- migration: (\d+)$/.exec(lines[1] ?? '')?.[1];
	// Backups before 2026-12 name only their migration.
	const portal = /^-- portal: (.+)$/.exec(lines[2] ?? '')?.[1] ?? null;
	const last = [...lines].reverse().find((line) => line.trim() !== '') ?? '';
	const rows = /^-- rows: (\{.*\})$/.exec(last)?.[1];
	if (!migration || !rows)
		throw new Error('the backup is incomplete (its header or its closing row counts are missing)');
	return { migration: Number(migration), counts: /** @type {Record<string, number>} */ (parseJson(rows)), portal };
}
