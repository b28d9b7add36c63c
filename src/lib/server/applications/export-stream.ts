import { sql, type SQL } from 'drizzle-orm';
import type { Database, DatabaseHandle } from '../db/client';
import { applications } from '../db/schema';
import { openSnapshot } from '../db/snapshot';

/** Rows one statement of a download reads: the statement's cost spread thin, memory flat. */
export const EXPORT_BATCH = 2000;

/** The first batch is smaller: the answer starts after one short statement, whatever the size. */
const FIRST_BATCH = 250;

/** A row's place in an export's order: created_at to the microsecond, and the id. */
export interface ExportKey {
	at: string;
	id: string;
}

/** One batch to read: the rows after `after` (from the start without it), created by `until`, at most `limit`. */
export interface ExportPage {
	after?: ExportKey;
	until: string;
	limit: number;
}

/** What a streamed export is made of: its head, how to read a batch, how to write a row. */
export interface ExportSource<Row> {
	head: string;
	read(db: Database, page: ExportPage): Promise<Row[]>;
	key(row: Row): ExportKey;
	line(row: Row): string;
}

/** created_at as a keyset cursor keeps it (a Date would drop three digits). */
export const keyAt = sql<string>`to_char(${applications.createdAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * The keyset conditions of a page over applications in (created_at, id) order: after its cursor,
 * and only applications that existed when the download began.
 */
export function pageWhere(page: ExportPage, descending = false): SQL[] {
	const where = [sql`${applications.createdAt} <= ${page.until}::timestamptz`];
	if (page.after) {
		const at = sql`(${page.after.at}::timestamptz, ${page.after.id}::uuid)`;
		const key = sql`(${applications.createdAt}, ${applications.id})`;
		where.push(descending ? sql`${key} < ${at}` : sql`${key} > ${at}`);
	}
	return where;
}

/**
 * Bytes a chunk of a download holds: each row's line is written as UTF-8 straight into the chunk, so a
 * batch leaves the JavaScript heap as soon as it is formatted (the rows and their strings die young,
 * never promoted to the old generation to wait there for a full collection), and what waits for the
 * client is bytes, encoded once (bench/history/2026-12-03-export-memory.md).
 */
const CHUNK_BYTES = 64 * 1024;

/**
 * Bytes a download keeps ready for its client: the next batch is read only when fewer are waiting
 * (the client has taken the rest, or most of it, down to its socket), so a slow client slows the reads
 * and a fast one still overlaps them with the database.
 */
const AHEAD_BYTES = 256 * 1024;

/**
 * The lines of `rows` as UTF-8, in chunks of about `CHUNK_BYTES` (a longer line has a chunk of its own).
 * Each row is let go as soon as its line is written, and the array is emptied: the driver's array
 * may already sit in the old generation, and a young row it still pointed to would survive every
 * minor collection until a full one, and be promoted with its strings (bench/history/2026-12-03-export-memory.md).
 */
function bytesOf<Row>(rows: (Row | undefined)[], line: (row: Row) => string, encoder: TextEncoder): Uint8Array[] {
	const chunks: Uint8Array[] = [];
	let chunk = new Uint8Array(CHUNK_BYTES);
	let used = 0;
	for (let i = 0; i < rows.length; i++) {
		const text = line(rows[i] as Row);
		rows[i] = undefined;
		const put = encoder.encodeInto(text, used ? chunk.subarray(used) : chunk);
		if (put.read === text.length) {
			used += put.written;
			continue;
		}
		// Did not fit: the chunk so far goes out, the line starts a new one (as long as it needs).
		if (used) chunks.push(chunk.subarray(0, used));
		chunk = new Uint8Array(Math.max(CHUNK_BYTES, text.length * 3));
		used = encoder.encodeInto(text, chunk).written;
	}
	rows.length = 0;
	if (used) chunks.push(chunk.subarray(0, used));
	return chunks;
}

/**
 * A download of every row `source` reads, in batches of `batchSize` within one snapshot
 * (db/snapshot.ts). The head and the first batch are read before this resolves, so a database
 * fault is still a clean error answer; later batches are read as the client takes them (a pull
 * stream measured in bytes): a batch is read when fewer than `AHEAD_BYTES` are waiting, formatted
 * into bytes at once, and its rows dropped, so what a download holds is its bytes in waiting (about
 * one batch's), whatever the number of rows or the speed of the client; a client that goes away
 * releases the snapshot.
 */
export async function exportStream<Row>(
	handle: DatabaseHandle,
	source: ExportSource<Row>,
	batchSize = EXPORT_BATCH
): Promise<ReadableStream<Uint8Array>> {
	const snapshot = await openSnapshot(handle);
	const encoder = new TextEncoder();
	let last: Row | undefined;
	let done = false;
	const next = async (limit = batchSize): Promise<Uint8Array[]> => {
		const after = last === undefined ? undefined : source.key(last);
		const rows = await source.read(snapshot.db, { after, until: snapshot.openedAt, limit });
		if (rows.length < limit) done = true;
		last = rows.at(-1) ?? last;
		return bytesOf(rows, (row) => source.line(row), encoder);
	};
	let first: Uint8Array[];
	try {
		first = [encoder.encode(source.head), ...(await next(Math.min(batchSize, FIRST_BATCH)))];
	} catch (err) {
		await snapshot.release();
		throw err;
	}
	return new ReadableStream<Uint8Array>(
		{
			async start(controller) {
				for (const chunk of first) controller.enqueue(chunk);
				first = [];
				if (done) {
					controller.close();
					await snapshot.release();
				}
			},
			async pull(controller) {
				try {
					for (const chunk of await next()) controller.enqueue(chunk);
					if (done) {
						await snapshot.release();
						controller.close();
					}
				} catch (err) {
					await snapshot.release();
					controller.error(err);
				}
			},
			cancel: () => snapshot.release()
		},
		{ highWaterMark: AHEAD_BYTES, size: (chunk) => chunk.byteLength }
	);
}
