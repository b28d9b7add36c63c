import type { SignedInMember } from '../auth/guards';
import type { Database } from '../db/client';
import type { Config } from '../platform/config';
import { fieldError, rateLimited, type Outcome } from '../platform/outcome';
import { consumeCost } from '../platform/rate-limit';
import type { OutboxTargets } from '../platform/outbox-targets';
import { polygonRpc } from './polygon';
import { recordFound } from './record-found';
import { findSettlements, type Settlement } from './settlements';
import {
	STEPS,
	isStep,
	missingSettings,
	nameList,
	stepWord,
	waitingFor,
	type Step,
	type WaitingApplication
} from './steps';
import { m } from '$lib/paraglide/messages';
import { settingList } from '$lib/applications/admin-words';

/** The field of `POST /admin?/reconcile`: `step`, once or for both steps. */
export const RECONCILE_FIELDS = ['step'] as const;

/** Most waiting applications one reconcile looks for per step (oldest first); the rest the next time. */
export const RECONCILE_MAX = 10_000;

export interface StepReport {
	step: Step;
	found: { id: string; displayName: string; txHash: string }[];
	/** Still waiting after this run (oldest first). */
	waiting: { id: string; displayName: string }[];
	fromBlock: string;
	toBlock: string;
}

/** 503: the chain could not be read; nothing was recorded. */
export type ChainUnavailable = { ok: false; status: 503; message: string };

/** `step` as sent: one of the steps, or both (repeated). */
function parseSteps(input: unknown): Step[] | null {
	const list = Array.isArray(input) ? input : [input];
	if (list.length < 1 || list.length > STEPS.length || !list.every(isStep)) return null;
	return STEPS.filter((s) => list.includes(s));
}

export interface ReconcileOptions {
	/** Blocks per eth_getLogs at first (tests and the bench set it). */
	chunk?: number;
	/** Per-request budget of POLYGON_RPC_URL. */
	timeoutMs?: number;
}

/**
 * reconcile: finds on chain what settles each application waiting for the step(s) and records it as
 * moves (docs/fulfilment.md). The cost of the per-address limit is known only once the chain has
 * been read: it is one transition per application moved, spent before anything is written; when
 * fewer are left than were found, the oldest found are recorded and the rest wait.
 */
export async function reconcile(
	db: Database,
	config: Config,
	outbox: OutboxTargets,
	admin: SignedInMember,
	input: { step?: unknown },
	options: ReconcileOptions = {}
): Promise<Outcome<StepReport[]> | ChainUnavailable> {
	const steps = parseSteps(input.step);
	if (!steps) return fieldError('step', m.admin_step_must_be());
	const missing = [...new Set(steps.flatMap((step) => missingSettings(config, step, 'reconcile')))];
	if (missing.length)
		return fieldError(
			'step',
			m.admin_find_needs_settings({
				steps: nameList(steps.map(stepWord)),
				names: settingList(missing),
				count: missing.length
			})
		);

	// Read the chain first, outside any database transaction: it may take many requests.
	const { client, confirmChain } = polygonRpc(config.polygonRpcUrl!, options.timeoutMs);
	const waitingByStep = new Map<Step, WaitingApplication[]>();
	for (const step of steps) waitingByStep.set(step, await waitingFor(db, step, { limit: RECONCILE_MAX }));
	const searched: { step: Step; waiting: WaitingApplication[]; settled: Settlement[]; from: bigint; to: bigint }[] = [];
	try {
		if (!(await confirmChain())) return unavailable('POLYGON_RPC_URL did not answer as chain 137 (Polygon).');
		for (const [step, waiting] of waitingByStep) {
			const found = await findSettlements(client, config, step, waiting, options.chunk);
			searched.push({ step, waiting, settled: found.settled, from: found.fromBlock, to: found.toBlock });
		}
	} catch {
		return unavailable('POLYGON_RPC_URL did not answer in time or refused the search.');
	}

	// One transition per application moved; if fewer are left, the oldest found go first.
	let budget = searched.reduce((n, s) => n + s.settled.length, 0);
	if (budget > 0) {
		let limit = await consumeCost(db, admin.address, 'transitionApplication', budget);
		if (!limit.ok) {
			const left = Math.max(0, limit.limit - limit.used);
			if (left === 0) return rateLimited(limit);
			limit = await consumeCost(db, admin.address, 'transitionApplication', left);
			if (!limit.ok) return rateLimited(limit);
			budget = left;
		}
	}
	const toRecord = searched.map((s) => {
		const settled = s.settled.slice(0, budget);
		budget -= settled.length;
		return { step: s.step, settled, waiting: s.waiting };
	});
	const recorded = await recordFound(db, outbox, admin, toRecord);

	return {
		ok: true,
		value: searched.map((s, i) => {
			const done = new Map(recorded[i]!.recorded.map((r) => [r.applicationId, r.txHash]));
			return {
				step: s.step,
				found: s.waiting
					.filter((w) => done.has(w.id))
					.map((w) => ({ id: w.id, displayName: w.displayName, txHash: done.get(w.id)! })),
				waiting: s.waiting.filter((w) => !done.has(w.id)).map((w) => ({ id: w.id, displayName: w.displayName })),
				fromBlock: String(s.from),
				toBlock: String(s.to)
			};
		})
	};
}

const unavailable = (why: string): ChainUnavailable => ({
	ok: false,
	status: 503,
	message: `${why} Nothing was recorded; try again in a moment.`
});
