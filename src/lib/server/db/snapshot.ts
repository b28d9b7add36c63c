import { sql } from 'drizzle-orm';
import type { Database, DatabaseHandle } from './client';
import { rowsOf } from './rows';

/** Reads that belong together (a download read in batches), and the moment they started. */
export interface Snapshot {
	db: Database;
	/**
	 * The database's clock when the snapshot opened (ISO, microseconds): a row created later is not
	 * part of it. On PGlite, which has no snapshot to hold, this bound is what keeps a download whole.
	 */
	openedAt: string;
	/** True on a server: every read sees the database as it was at `openedAt`. */
	held: boolean;
	/** Ends the snapshot and gives its connection back; safe to call more than once. */
	release(): Promise<void>;
}

/**
 * Longest a held snapshot may wait for its reader (a client that stopped reading): Postgres then
 * closes the connection, the download fails, and the pool gets a fresh one.
 */
const IDLE_LIMIT = '5min';

/**
 * A snapshot for a long read. On a server: a REPEATABLE READ READ ONLY transaction on a connection
 * of its own, held until release. On PGlite: no transaction, since one would hold the only
 * connection and stall every other request for the whole download; each read is consistent on
 * its own and `openedAt` bounds the rows (docs/decisions/0038-exports-that-stream.md).
 */
export async function openSnapshot(handle: DatabaseHandle): Promise<Snapshot> {
	if (handle.kind === 'pglite') {
		const openedAt = await clock(handle.db);
		return { db: handle.db, openedAt, held: false, release: async () => {} };
	}
	let finish!: () => void;
	const finished = new Promise<void>((resolve) => (finish = resolve));
	let transaction: Promise<void> = Promise.resolve();
	const opened = await new Promise<{ db: Database; openedAt: string }>((resolve, reject) => {
		transaction = handle.db
			.transaction(
				async (tx) => {
					await tx.execute(sql.raw(`set local idle_in_transaction_session_timeout = '${IDLE_LIMIT}'`));
					const db = tx as unknown as Database;
					resolve({ db, openedAt: await clock(db) });
					await finished;
				},
				{ isolationLevel: 'repeatable read', accessMode: 'read only' }
			)
			.catch((err: Error) => reject(err)); // after resolve a reject is a no-op: a lost connection at the end
	});
	let released = false;
	return {
		...opened,
		held: true,
		async release() {
			if (released) return;
			released = true;
			finish();
			await transaction;
		}
	};
}

async function clock(db: Database): Promise<string> {
	const result = await db.execute(
		sql`select to_char(clock_timestamp() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as now`
	);
	return rowsOf<{ now: string }>(result)[0]!.now;
}
