import type { Database } from '../db/client';
import type { SignedInMember } from '../auth/guards';
import { applyMoves, type Moves } from '../applications/moves';
import type { OutboxTargets } from '../platform/outbox-targets';
import type { Settlement } from './settlements';
import type { Step, WaitingApplication } from './steps';

/** The reason every move that reconcile records carries (docs/fulfilment.md). */
export const FOUND_ON_CHAIN = 'found on chain';

const DONE = { allowlist: 'added', distribution: 'sent' } as const;

/**
 * Records the settlements as moves to added / sent through the one move pipeline (applyMoves), all in
 * ONE transaction: a move per step, state left (pending or failed) and transaction hash, usually one
 * per step since a Safe batch is one transaction. Each carries the hash as verified (the chain just
 * showed its logs, so it is not looked up again), executor the admin, reason "found on chain". An
 * application moved meanwhile (by hand, or by another reconcile) is left out and the rest recorded,
 * so running reconcile twice records nothing new. Returns the settlements recorded.
 */
export async function recordFound(
	db: Database,
	outbox: OutboxTargets,
	admin: SignedInMember,
	found: { step: Step; settled: Settlement[]; waiting: WaitingApplication[] }[]
): Promise<{ step: Step; recorded: Settlement[] }[]> {
	const moves = found.flatMap(({ step, settled, waiting }) => {
		const stateOf = new Map(waiting.map((w) => [w.id, w.state]));
		const groups = new Map<string, Settlement[]>();
		for (const s of settled) {
			const key = `${stateOf.get(s.applicationId)} ${s.txHash.toLowerCase()}`;
			groups.set(key, [...(groups.get(key) ?? []), s]);
		}
		return [...groups].map(([key, group]) => {
			const [from, txHash] = key.split(' ') as [string, string];
			const move: Moves = { applicationIds: [], field: step, to: DONE[step], reason: FOUND_ON_CHAIN, txHash, from };
			return { step, move, group };
		});
	});
	const record = async (tx: Database) => {
		const recorded = new Map<Step, Settlement[]>(found.map(({ step }) => [step, []]));
		for (const { step, move, group } of moves)
			recorded.get(step)!.push(...(await moveAllStillWaiting(tx, outbox, admin, move, group)));
		return found.map(({ step }) => ({ step, recorded: recorded.get(step)! }));
	};
	// One move (the usual case: one Safe batch for one step) is already one transaction; more are
	// wrapped in one, each applyMoves then a savepoint inside it.
	return moves.length <= 1 ? record(db) : db.transaction((tx) => record(tx));
}

/**
 * applyMoves is all or nothing: the applications it refuses (moved since the chain was read) are dropped and the rest moved; its refusals write nothing, so retrying inside the transaction is safe.
 */
async function moveAllStillWaiting(
	tx: Database,
	outbox: OutboxTargets,
	admin: SignedInMember,
	move: Moves,
	group: Settlement[]
): Promise<Settlement[]> {
	let left = group;
	while (left.length) {
		const outcome = await applyMoves(
			tx,
			outbox,
			admin,
			{ ...move, applicationIds: left.map((s) => s.applicationId) },
			{ txVerified: true }
		);
		if (outcome.ok) return left;
		// Applications are never deleted, and the move was built by code: only a 409 can be expected here.
		if (outcome.status !== 409 || !outcome.refused)
			throw new Error(`reconcile: the move pipeline refused: ${outcome.message}`);
		const refused = new Set(outcome.refused.map((r) => r.id));
		left = left.filter((s) => !refused.has(s.applicationId));
	}
	return left;
}
