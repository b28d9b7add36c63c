import type { Database } from '../db/client';
import { singleton } from '$lib/singleton';
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

/**
 * How long one reading serves every admin of this process. The charts move by the week and the day,
 * so a minute-old reading (its time is on the page) costs nothing; it keeps the page's time flat
 * however large the tables grow (bench/README.md "insights").
 */
export const INSIGHTS_TTL_MS = 60_000;

const reading = singleton<{ insights: Insights; at: number; db: Database } | null>('insights reading', () => null);

/** The last reading when it is younger than INSIGHTS_TTL_MS (and of this database), else a new one. */
export async function currentInsights(db: Database, now = Date.now()): Promise<Insights> {
	const cached = reading.get();
	if (cached && cached.db === db && now - cached.at < INSIGHTS_TTL_MS) return cached.insights;
	const insights = await readInsights(db);
	reading.set({ insights, at: now, db });
	return insights;
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
