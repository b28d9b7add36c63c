import { inArray, sql } from 'drizzle-orm';
import type { Database, DatabaseHandle } from '../db/client';
import { applicationFiles } from '../db/schema';
import { isDatabaseUnavailable } from '../db/errors';
import { executePrepared } from '../db/prepared';
import { rowsOf } from '../db/rows';
import { logger } from '../platform/observability';
import { consumeCall, type CountedRow } from '../platform/rate-limit';
import type { BlobStore, StoredEntry } from './store';

/**
 * How long stored bytes no row references are left alone. An upload under way writes its temporary for at
 * most the server's REQUEST_TIMEOUT (25 s by default) and keeps it under its hash just before the
 * transaction that writes its row: both far inside an hour. Keeping bytes again (the same file sent
 * anew) makes them new again (store.ts), so bytes an upload is about to reference are never old.
 */
export const SWEEP_GRACE_MS = 60 * 60 * 1000;
/** How often the server's own sweep runs (hooks.server.ts), and the cron run's at most (sweepIfDue). */
export const SWEEP_EVERY_MS = 60 * 60 * 1000;

/** What a sweep removed. */
export interface Swept {
	/** Bytes kept under their hash that no `application_files` row references (a crash between the bytes and the row). */
	files: number;
	/** Temporaries (an upload or a put a crash cut off; an S3 multipart upload left open). */
	temporaries: number;
	/** Set when the deadline ended the sweep before it had looked at every entry: the next one starts over. */
	cutShort?: true;
}

/** Hashes looked up in the database at once. */
const BATCH = 500;

/**
 * sweepOrphans: removes from `store` what no row references and was last written more than `graceMs`
 * before `now`: temporaries, and files under their hash with no `application_files` row. Each is looked
 * at again just before it goes (`removeOld`), so bytes kept since (an upload of the same file) stay.
 * The rows are read in batches; a store that fails to remove one is logged and the sweep goes on.
 */
export async function sweepOrphans(
	db: Database,
	store: BlobStore,
	{
		now = new Date(),
		graceMs = SWEEP_GRACE_MS,
		deadline = Infinity
	}: {
		now?: Date;
		graceMs?: number;
		/** Date.now() past which no more entries are looked at. */
		deadline?: number;
	} = {}
): Promise<Swept> {
	const olderThan = new Date(now.getTime() - graceMs);
	const swept: Swept = { files: 0, temporaries: 0 };
	const remove = async (entry: StoredEntry) => {
		try {
			if (await store.removeOld(entry, olderThan)) swept[entry.kind === 'file' ? 'files' : 'temporaries']++;
		} catch (err) {
			const what = entry.kind === 'file' ? entry.sha256 : `temporary ${entry.name}`;
			logger.warn(`files: the sweep could not remove ${what}: ${err instanceof Error ? err.message : String(err)}`);
		}
	};
	let batch: string[] = [];
	const flush = async () => {
		if (!batch.length) return;
		const hashes = batch;
		batch = [];
		const used = new Set(
			(
				await db
					.select({ sha256: applicationFiles.sha256 })
					.from(applicationFiles)
					.where(inArray(applicationFiles.sha256, hashes))
			).map((r) => r.sha256)
		);
		for (const sha256 of hashes) if (!used.has(sha256)) await remove({ kind: 'file', sha256, modified: olderThan });
	};
	for await (const entry of store.entries()) {
		if (Date.now() >= deadline) {
			swept.cutShort = true;
			break;
		}
		if (entry.modified >= olderThan) continue;
		if (entry.kind === 'temporary') await remove(entry);
		else {
			batch.push(entry.sha256);
			if (batch.length >= BATCH) await flush();
		}
	}
	await flush();
	return swept;
}

const logSwept = (swept: Swept) => {
	if (swept.files || swept.temporaries)
		logger.info(
			`files: the sweep removed ${swept.files} stored files no row references and ${swept.temporaries} temporaries`
		);
};

/** How long the cron run's sweep may look at entries (the function's limit is 60 s; deliveries run beside it). */
export const CRON_SWEEP_BUDGET_MS = 20_000;

/**
 * The sweep of a run without a long-lived process (the cron endpoint, on Vercel): at most one an hour
 * across every instance and overlapping invocation, and at most `budgetMs` of looking at entries.
 * The hour is claimed in the database first, through consume_rate_limit() (one statement on a row lock:
 * of two runs at once, exactly one gets it); the others, and every run until the hour has passed, sweep
 * nothing and answer null. A sweep cut short by its budget starts over next hour. Never throws: a
 * database or store away is logged, and the run's other work goes on.
 */
export async function sweepIfDue(
	database: DatabaseHandle,
	store: BlobStore,
	{ budgetMs = CRON_SWEEP_BUDGET_MS, graceMs = SWEEP_GRACE_MS, everyMs = SWEEP_EVERY_MS } = {}
): Promise<Swept | null> {
	try {
		await database.ready();
		const claim = consumeCall('portal', 'files-sweep', { limit: 1, windowSeconds: everyMs / 1000, counts: 'sweeps' });
		const result = await executePrepared(
			database.db,
			'files_sweep_claim',
			sql`select allowed, used, reset_at::text as reset_at from ${claim}`
		);
		if (!rowsOf<CountedRow>(result)[0]?.allowed) return null;
		const swept = await sweepOrphans(database.db, store, { graceMs, deadline: Date.now() + budgetMs });
		logSwept(swept);
		return swept;
	} catch (err) {
		if (!isDatabaseUnavailable(err))
			logger.error(`files: the sweep failed: ${err instanceof Error ? err.message : String(err)}`);
		return null;
	}
}

/**
 * The server's sweep (not on Vercel, which runs no process between requests): once soon after start, then
 * every `everyMs`; a database away is tried again next time. Returns the stop, which waits for a sweep
 * under way.
 */
export function startFileSweep(
	database: DatabaseHandle,
	store: BlobStore,
	{ everyMs = SWEEP_EVERY_MS, firstAfterMs = 60_000, graceMs = SWEEP_GRACE_MS } = {}
): () => Promise<void> {
	let stopped = false;
	let timer: ReturnType<typeof setTimeout> | undefined;
	let running: Promise<void> = Promise.resolve();
	const tick = async () => {
		try {
			await database.ready();
			logSwept(await sweepOrphans(database.db, store, { graceMs }));
		} catch (err) {
			if (!isDatabaseUnavailable(err))
				logger.error(`files: the sweep failed: ${err instanceof Error ? err.message : String(err)}`);
		}
		if (!stopped) timer = setTimeout(() => void (running = tick()), everyMs);
	};
	timer = setTimeout(() => void (running = tick()), firstAfterMs);
	return async () => {
		stopped = true;
		clearTimeout(timer);
		await running;
	};
}
