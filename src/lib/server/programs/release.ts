import { and, eq, isNotNull, isNull, lte, sql } from 'drizzle-orm';
import type { Database, DatabaseHandle } from '../db/client';
import { isDatabaseUnavailable } from '../db/errors';
import { logger } from '../platform/observability';
import { rowsOf } from '../db/rows';
import { applications, notifications, rounds, webhookDeliveries } from '../db/schema';
import { fieldError, conflict, type Outcome } from '../platform/outcome';
import { noteOutboxRows } from '../outbox/written';
import { tellReleasedDecisions } from '../notifications/record';
import { m } from '$lib/paraglide/messages';

/**
 * Decisions released together (docs/application-form.md "Programmes and rounds"). In a round whose
 * `release_mode` is `together` and that is not released yet, an approve or reject (and every later move
 * of that application) is recorded at once, but its webhook, push and e-mail rows and its inbox row are
 * written held for the round (`held_round_id`): no claim takes them (outbox/store.ts) and the inbox shows
 * none; its applicant reads "in review" (applications/staged.ts). The release clears the mark once.
 */

/** What one release did (the result of `releaseRound`, and each round of `releaseDueRounds`). */
export interface Release {
	roundId: number;
	releasedAt: Date;
	/** The admin's address, or null when the round's `release_at` came. */
	releasedBy: string | null;
	/** Inbox rows now shown to their applicants (one per staged decision and later move). */
	notifications: number;
	/** Webhook, push and e-mail rows now due (each sent once by the outbox). */
	deliveries: number;
}

type Tx = Parameters<Parameters<Database['transaction']>[0]>[0];

/** Clears the round's held rows, in the transaction that set its released_at (also saveRound's, on a switch to `immediate`). */
export async function unhold(tx: Tx, roundId: number): Promise<Pick<Release, 'notifications' | 'deliveries'>> {
	// Each decision is told once, as the community's `decisions.released` message, before its rows go.
	await tellReleasedDecisions(tx, roundId);
	// The event reaches its receiver when it is released: its timestamp and its retry window start now.
	const deliveries = await tx
		.update(webhookDeliveries)
		.set({ heldRoundId: null, occurredAt: sql`now()`, nextAttemptAt: sql`now()` })
		.where(eq(webhookDeliveries.heldRoundId, roundId))
		.returning({ id: webhookDeliveries.id });
	const told = await tx
		.update(notifications)
		.set({ heldRoundId: null, createdAt: sql`now()` })
		.where(eq(notifications.heldRoundId, roundId))
		.returning({ id: notifications.id });
	noteOutboxRows(deliveries.length);
	return { notifications: told.length, deliveries: deliveries.length };
}

/**
 * releaseRound: an admin's Release of a round (`POST /admin/programs?/release`, field `round`). Sets
 * `released_at` (and `released_by`) once, with a conditional UPDATE (`WHERE released_at IS NULL`), and in
 * the same transaction lets the round's held messages go: from then on its applicants read their
 * decisions and the outbox sends each held webhook, push and e-mail exactly once. Two admins releasing at
 * once: one release; the other gets 409. A decision made after the release goes at once.
 *
 * Answers: `{ ok: true, value: Release }`; 400 on `round` (not a round's id); 409 when it was already
 * released (its `message` says so). The caller guards (admins only) and spends any rate limit.
 */
export async function releaseRound(db: Database, roundId: number, by: string): Promise<Outcome<Release>> {
	if (!Number.isSafeInteger(roundId) || roundId < 1 || roundId > 2 ** 31 - 1)
		return fieldError('round', m.round_release_unknown());
	return db.transaction(async (tx): Promise<Outcome<Release>> => {
		const [done] = await tx
			.update(rounds)
			.set({ releasedAt: sql`now()`, releasedBy: by.toLowerCase() })
			.where(and(eq(rounds.id, roundId), isNull(rounds.releasedAt)))
			.returning({ releasedAt: rounds.releasedAt });
		if (!done) {
			const [exists] = await tx.select({ id: rounds.id }).from(rounds).where(eq(rounds.id, roundId));
			return exists ? conflict(m.round_release_already()) : fieldError('round', m.round_release_unknown());
		}
		const counts = await unhold(tx, roundId);
		return {
			ok: true,
			value: { roundId, releasedAt: done.releasedAt!, releasedBy: by.toLowerCase(), ...counts }
		};
	});
}

/**
 * Releases every round released together whose `release_at` has come and that is not released yet (one
 * conditional UPDATE each, as releaseRound's): the worker's tick and the cron route call it, and the
 * server's start, so a time that passed while no server ran is released then. Returns what it released.
 */
export async function releaseDueRounds(db: Database): Promise<Release[]> {
	const due = await db
		.select({ id: rounds.id })
		.from(rounds)
		.where(and(isNull(rounds.releasedAt), isNotNull(rounds.releaseAt), lte(rounds.releaseAt, sql`now()`)));
	const released: Release[] = [];
	for (const { id } of due) {
		const release = await db.transaction(async (tx) => {
			const [done] = await tx
				.update(rounds)
				.set({ releasedAt: sql`now()` })
				.where(and(eq(rounds.id, id), isNull(rounds.releasedAt), lte(rounds.releaseAt, sql`now()`)))
				.returning({ releasedAt: rounds.releasedAt });
			if (!done) return null;
			return { roundId: id, releasedAt: done.releasedAt!, releasedBy: null, ...(await unhold(tx, id)) };
		});
		if (release) released.push(release);
	}
	return released;
}

/** What the admin page shows of a round before its release. */
export interface StagedCounts {
	/** Approvals and rejections recorded and held from their applicants. */
	approved: number;
	rejected: number;
	/** Different applicants who will be told at the release. */
	applicants: number;
	/** Held inbox rows and outbox rows (webhook, push, e-mail) that go at the release. */
	notifications: number;
	deliveries: number;
}

/**
 * stagedCounts: how many decisions of a round are staged (approved, rejected) and how many applicants the
 * release will tell; all zero for a round that is released or not released together. Two queries.
 */
export async function stagedCounts(db: Database, roundId: number): Promise<StagedCounts> {
	const result = await db.execute(sql`select
		count(*) filter (where a.review = 'approved')::int as approved,
		count(*) filter (where a.review = 'rejected')::int as rejected,
		count(distinct a.applicant_address)::int as applicants
		from ${applications} a join ${rounds} r on r.id = a.round_id
		where a.round_id = ${roundId} and r.release_mode = 'together' and r.released_at is null
			and a.review in ('approved', 'rejected')`);
	const [staged] = rowsOf<{ approved: number; rejected: number; applicants: number }>(result);
	const held = rowsOf<{ notifications: number; deliveries: number }>(
		await db.execute(sql`select
			(select count(*)::int from ${notifications} where held_round_id = ${roundId}) as notifications,
			(select count(*)::int from ${webhookDeliveries} where held_round_id = ${roundId}) as deliveries`)
	)[0];
	return {
		approved: staged?.approved ?? 0,
		rejected: staged?.rejected ?? 0,
		applicants: staged?.applicants ?? 0,
		notifications: held?.notifications ?? 0,
		deliveries: held?.deliveries ?? 0
	};
}

/** How often a running server looks for a round whose `release_at` has come. */
export const RELEASE_TICK_MS = 5_000;

/**
 * Beside the delivery worker (adapter-node), outside every request: releases the rounds whose
 * `release_at` has come, at once (a time that passed while no server ran) and then every `everyMs`, so
 * the worker sends their held rows on its next claim. A database outage only skips a tick. Returns the stop.
 */
export function startRoundReleases(
	database: DatabaseHandle,
	everyMs = RELEASE_TICK_MS,
	onRelease: (released: Release) => void = () => {}
): () => Promise<void> {
	let stopped = false;
	let timer: ReturnType<typeof setTimeout> | undefined;
	let running: Promise<void> = Promise.resolve();
	const tick = async () => {
		try {
			await database.ready();
			for (const released of await releaseDueRounds(database.db)) onRelease(released);
		} catch (err) {
			if (!isDatabaseUnavailable(err))
				logger.error(`rounds: could not release a round: ${err instanceof Error ? err.message : String(err)}`);
		}
		if (!stopped) timer = setTimeout(() => void (running = tick()), everyMs);
	};
	running = tick();
	return async () => {
		stopped = true;
		clearTimeout(timer);
		await running;
	};
}
