import { and, eq, inArray, or, sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { applications } from '../db/schema';
import type { SignedInMember } from '../auth/guards';
import { applicationTransitioned, insertAuditWithEvents } from '../webhooks/events';
import type { Settlement } from './settlements';
import type { Step } from './steps';

/** The reason every move that reconcile records carries (DECISIONS "Fulfilment without a key"). */
export const FOUND_ON_CHAIN = 'found on chain';

const DONE = { allowlist: 'added', distribution: 'sent' } as const;

/**
 * Records the settlements of each step as moves to added / sent in ONE transaction: per step, the
 * rows still waiting are locked and moved by one UPDATE, and their audit rows (tx hash, tx_verified
 * true, executor the admin, reason "found on chain") and webhook events go in one statement. An
 * application moved meanwhile (by hand, or by another reconcile) is skipped, so running it twice
 * records nothing new. Returns the settlements recorded.
 */
export async function recordFound(
	db: Database,
	admin: SignedInMember,
	found: { step: Step; settled: Settlement[] }[]
): Promise<{ step: Step; recorded: Settlement[] }[]> {
	return db.transaction(async (tx) => {
		const result: { step: Step; recorded: Settlement[] }[] = [];
		for (const { step, settled } of found) {
			if (!settled.length) {
				result.push({ step, recorded: [] });
				continue;
			}
			const column = applications[step];
			const waiting = and(
				inArray(
					applications.id,
					settled.map((s) => s.applicationId)
				),
				eq(applications.review, 'approved'),
				or(eq(column, 'pending'), eq(column, 'failed'))
			);
			// FOR UPDATE: nobody records these between the check and the UPDATE.
			const rows = await tx
				.select({ id: applications.id, from: column })
				.from(applications)
				.where(waiting)
				.for('update');
			const before = new Map(rows.map((r) => [r.id, r.from]));
			const recorded = settled.filter((s) => before.has(s.applicationId));
			if (!recorded.length) {
				result.push({ step, recorded });
				continue;
			}
			const moved = await tx
				.update(applications)
				.set({ [step]: DONE[step], updatedAt: sql`now()` })
				.where(inArray(applications.id, [...before.keys()]))
				.returning();
			const hashOf = new Map(recorded.map((s) => [s.applicationId, s.txHash.toLowerCase()]));
			const audits = moved.map((application) => ({
				applicationId: application.id,
				executorAddress: admin.address,
				field: step,
				fromState: before.get(application.id)!,
				toState: DONE[step],
				reason: FOUND_ON_CHAIN,
				txHash: hashOf.get(application.id)!,
				txVerified: true as const
			}));
			await insertAuditWithEvents(
				tx,
				audits,
				moved.map((application, i) => applicationTransitioned(application, audits[i]!))
			);
			result.push({ step, recorded });
		}
		return result;
	});
}
