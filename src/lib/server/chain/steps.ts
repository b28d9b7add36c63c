import { and, asc, eq, inArray, or, sql } from 'drizzle-orm';
import type { Config } from '../platform/config';
import type { Database } from '../db/client';
import { applicationEvents, applications } from '../db/schema';
import { m } from '$lib/paraglide/messages';

/** The two on-chain steps an approved application waits for. */
export const STEPS = ['allowlist', 'distribution'] as const;
export type Step = (typeof STEPS)[number];
export const isStep = (s: unknown): s is Step => (STEPS as readonly unknown[]).includes(s);

/** Most applications one batch file holds (docs/fulfilment.md). */
export const BATCH_MAX = 100;

/**
 * The variables a step's batch file or its search on chain needs that are not set, by name (a 400
 * names them). The batch calls ALLOWLIST_FUNCTION; the search reads ALLOWLIST_EVENT.
 */
export function missingSettings(config: Config, step: Step, purpose: 'batch' | 'reconcile'): string[] {
	const f = config.fulfilment;
	const needed: [string, unknown][] =
		step === 'allowlist'
			? purpose === 'batch'
				? [
						['TREASURY_ADDRESS', f.treasuryAddress],
						['ALLOWLIST_CONTRACT', f.allowlistContract],
						['ALLOWLIST_FUNCTION', f.allowlistFunction]
					]
				: [
						['POLYGON_RPC_URL', config.polygonRpcUrl],
						['ALLOWLIST_CONTRACT', f.allowlistContract],
						['ALLOWLIST_EVENT', f.allowlistEvent]
					]
			: [
					...(purpose === 'reconcile' ? ([['POLYGON_RPC_URL', config.polygonRpcUrl]] as [string, unknown][]) : []),
					['TREASURY_ADDRESS', f.treasuryAddress],
					['PUBLIC_TOKEN_ADDRESS', config.token],
					['TOKEN_GRANT_AMOUNT', f.tokenGrantAmount]
				];
	return needed.filter(([, value]) => value == null).map(([name]) => name);
}

/** "allowlist" / "A and B" / "A, B and C". */
export const nameList = (names: string[]) =>
	names.length <= 1
		? (names[0] ?? '')
		: m.admin_name_list({ names: names.slice(0, -1).join(m.admin_list_separator()), last: names.at(-1)! });

/** A step as the admin's messages name it ("allowlist", "distribution"), in the request's locale. */
export const stepWord = (step: Step) => (step === 'allowlist' ? m.admin_step_allowlist() : m.admin_step_distribution());

/** An approved application whose step is still pending or failed. */
export interface WaitingApplication {
	id: string;
	applicantAddress: `0x${string}`;
	displayName: string;
	state: 'pending' | 'failed';
	/** When its review was approved: the approval audit row's time (its creation when it has none). */
	approvedAt: Date;
}

/**
 * The applications waiting for `step`, oldest first: those of `ids` that are waiting, or every
 * waiting one (at most `limit`). One statement.
 */
export async function waitingFor(
	db: Database,
	step: Step,
	options: { ids?: string[]; limit?: number } = {}
): Promise<WaitingApplication[]> {
	const column = applications[step];
	const where = [eq(applications.review, 'approved'), or(eq(column, 'pending'), eq(column, 'failed'))];
	if (options.ids) where.push(inArray(applications.id, options.ids));
	// An application seeded with SQL may lack its approval row: its creation then bounds the search (earlier, never later).
	const approvedAt = sql<Date>`coalesce((select max(e.created_at) from ${applicationEvents} as e where e.application_id = "applications"."id" and e.field = 'review' and e.to_state = 'approved'), "applications"."created_at")`;
	const rows = await db
		.select({
			id: applications.id,
			applicantAddress: applications.applicantAddress,
			displayName: applications.displayName,
			state: column,
			approvedAt: approvedAt.mapWith((v: string | Date) => new Date(v))
		})
		.from(applications)
		.where(and(...where))
		.orderBy(asc(applications.createdAt), asc(applications.id))
		.limit(options.limit ?? BATCH_MAX);
	return rows as WaitingApplication[];
}

/** How many applications wait for `step` in all: a batch holds the oldest BATCH_MAX, and says of how many. */
export async function countWaiting(db: Database, step: Step): Promise<number> {
	const column = applications[step];
	const [row] = await db
		.select({ n: sql<number>`count(*)`.mapWith(Number) })
		.from(applications)
		.where(and(eq(applications.review, 'approved'), or(eq(column, 'pending'), eq(column, 'failed'))));
	return row?.n ?? 0;
}

/** What the review table offers for each step: the settings its batch and its search still need. */
export function fulfilmentOffer(config: Config): Record<Step, { batchNeeds: string[]; findNeeds: string[] }> {
	const offer = (step: Step) => ({
		batchNeeds: missingSettings(config, step, 'batch'),
		findNeeds: missingSettings(config, step, 'reconcile')
	});
	return { allowlist: offer('allowlist'), distribution: offer('distribution') };
}
