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
export async function readInsights(db: Database): Promise<Insights> {
	const readAt = new Date().toISOString();
	// One after another: PGlite answers one statement at a time anyway, and a pool keeps its other connections free.
	const weekly = await applicationsPerWeek(db);
	const steps = await funnel(db);
	const waits = await timeToFirstDecision(db);
	const daily = await checkInsPerDay(db);
	const votes = await votesPerReviewer(db);
	return {
		readAt,
		applicationsPerWeek: weekly,
		funnel: steps,
		timeToFirstDecision: waits,
		checkInsPerDay: daily,
		votesPerReviewer: votes
	};
}
