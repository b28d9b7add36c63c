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
 * Characters a chunk of a download holds at most (plus one line): the client's socket takes a batch
 * in pieces instead of one string of about 1 MB (and its bytes) made at once.
 */
const CHUNK = 32 * 1024;

/** The lines of `rows`, joined into chunks of about `CHUNK` characters. */
function chunksOf<Row>(rows: readonly Row[], line: (row: Row) => string): string[] {
	const chunks: string[] = [];
	let text = '';
	for (const row of rows) {
		text += line(row);
		if (text.length >= CHUNK) {
			chunks.push(text);
			text = '';
		}
	}
	if (text) chunks.push(text);
	return chunks;
}

/**
 * A download of every row `source` reads, in batches of `batchSize` within one snapshot
 * (db/snapshot.ts). The head and the first batch are read before this resolves, so a database
 * fault is still a clean error answer; later batches are read as the client takes them (a pull
 * stream), one batch ahead: while the client takes a batch the database reads the next, so the two
 * overlap instead of taking turns (at most two batches in memory), and a client that goes away releases
 * the snapshot.
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
	const next = async (limit = batchSize): Promise<string[]> => {
		const after = last === undefined ? undefined : source.key(last);
		const rows = await source.read(snapshot.db, { after, until: snapshot.openedAt, limit });
		if (rows.length < limit) done = true;
		last = rows.at(-1) ?? last;
		return chunksOf(rows, (row) => source.line(row));
	};
	let first: string[];
	try {
		first = [source.head, ...(await next(Math.min(batchSize, FIRST_BATCH)))];
	} catch (err) {
		await snapshot.release();
		throw err;
	}
	// The batch being read while the client takes the one before; its error is reported when pulled.
	let ahead: Promise<string[]> | undefined;
	const readAhead = () => {
		ahead = next();
		ahead.catch(() => {});
	};
	return new ReadableStream<Uint8Array>(
		{
			async start(controller) {
				for (const text of first) controller.enqueue(encoder.encode(text));
				if (done) {
					controller.close();
					await snapshot.release();
				} else readAhead();
			},
			async pull(controller) {
				try {
					const texts = await (ahead ?? next());
					ahead = undefined;
					for (const text of texts) controller.enqueue(encoder.encode(text));
					if (done) {
						await snapshot.release();
						controller.close();
					} else readAhead();
				} catch (err) {
					await snapshot.release();
					controller.error(err);
				}
			},
			cancel: () => snapshot.release()
		},
		{ highWaterMark: 1 }
	);
}
