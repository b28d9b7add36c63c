import type { Database } from '../db/client';
import {
	applicationsPerWeek,
	checkInsPerDay,
	funnel,
	timeToFirstDecision,
	votesPerReviewer,
	type DailyCheckIns,
	type Funnel,
	type ReviewerVotes,
	type WeeklyApplications,
	type WeeklyWait
} from './queries';
import {
	applicationsPerWeekOf,
	funnelOf,
	isFiltered,
	timeToFirstDecisionOf,
	votesPerReviewerOf,
	type InsightsFilter
} from './filtered';

/** Everything /admin/insights draws, read at one moment. */
export interface Insights {
	/** When the numbers were read (ISO time). */
	readAt: string;
	applicationsPerWeek: WeeklyApplications[];
	funnel: Funnel;
	timeToFirstDecision: WeeklyWait[];
	checkInsPerDay: DailyCheckIns[];
	/** Null when the portal has no reviewer votes table. */
	votesPerReviewer: ReviewerVotes[] | null;
}

/** Reads every chart's numbers, one aggregate statement each. */
export async function readInsights(db: Database, filter: InsightsFilter = {}): Promise<Insights> {
	const readAt = new Date().toISOString();
	// A programme or round (#57) reads its own rows (filtered.ts); check-ins belong to members, not to a
	// programme, so that chart is the portal's either way.
	const of = isFiltered(filter);
	// One after another: PGlite answers one statement at a time anyway, and a pool keeps its other connections free.
	const weekly = of ? await applicationsPerWeekOf(db, filter) : await applicationsPerWeek(db);
	const steps = of ? await funnelOf(db, filter) : await funnel(db);
	const waits = of ? await timeToFirstDecisionOf(db, filter) : await timeToFirstDecision(db);
	const daily = await checkInsPerDay(db);
	const votes = of ? await votesPerReviewerOf(db, filter) : await votesPerReviewer(db);
	return {
		readAt,
		applicationsPerWeek: weekly,
		funnel: steps,
		timeToFirstDecision: waits,
		checkInsPerDay: daily,
		votesPerReviewer: votes
	};
}
