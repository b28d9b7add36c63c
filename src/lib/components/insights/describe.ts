import type { Insights } from '$lib/server/insights/insights';

// The words of the charts: their labels and text alternatives, written from the same numbers they draw.

const shortDate = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });
const longDate = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeZone: 'UTC' });

/** "14 Sep" for a YYYY-MM-DD day (UTC), as the x axes label weeks and days. */
export const dayLabel = (day: string) => shortDate.format(new Date(`${day}T00:00:00Z`));
export const longDay = (day: string) => longDate.format(new Date(`${day}T00:00:00Z`));

/** Seconds as days with one decimal, the unit of waiting times. */
export const days = (seconds: number) => Math.round((seconds / 86_400) * 10) / 10;

export const shortAddress = (address: string) => `${address.slice(0, 6)}…${address.slice(-4)}`;

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function busiest<T>(rows: T[], value: (row: T) => number): T | null {
	return rows.reduce<T | null>((best, row) => (best === null || value(row) > value(best) ? row : best), null);
}

export function describeWeekly(rows: Insights['applicationsPerWeek']): string {
	const sum = (key: 'pending' | 'needsInfo' | 'approved' | 'rejected') => rows.reduce((s, r) => s + r[key], 0);
	const total = sum('pending') + sum('needsInfo') + sum('approved') + sum('rejected');
	if (total === 0) return `No applications were submitted in the last ${rows.length} weeks.`;
	const top = busiest(rows, (r) => r.pending + r.needsInfo + r.approved + r.rejected)!;
	const topCount = top.pending + top.needsInfo + top.approved + top.rejected;
	return (
		`${plural(total, 'application')} submitted in the last ${rows.length} weeks: ${sum('pending')} pending, ` +
		`${sum('needsInfo')} needing information, ${sum('approved')} approved, ${sum('rejected')} rejected. ` +
		`The busiest week began ${longDay(top.week)}, with ${topCount}.`
	);
}

export function describeFunnel(f: Insights['funnel']): string {
	if (f.submitted === 0) return 'No applications have been submitted yet.';
	return `Of ${plural(f.submitted, 'application')} submitted, ${f.approved} were approved, ${f.allowlisted} added to the allowlist and ${f.sent} sent the token.`;
}

export function describeWaits(rows: Insights['timeToFirstDecision']): string {
	const decided = rows.reduce((s, r) => s + r.decided, 0);
	const waiting = rows.reduce((s, r) => s + r.waiting, 0);
	const latest = [...rows].reverse().find((r) => r.medianSeconds !== null);
	if (!latest)
		return `No application submitted in the last ${rows.length} weeks has had a decision yet; ${waiting} waiting.`;
	return (
		`${plural(decided, 'application')} submitted in the last ${rows.length} weeks had a first decision and ${waiting} still wait. ` +
		`For the latest week with decisions (from ${longDay(latest.week)}), the median wait was ${days(latest.medianSeconds!)} days ` +
		`and the 90th percentile ${days(latest.p90Seconds!)} days.`
	);
}

export function describeCheckIns(rows: Insights['checkInsPerDay']): string {
	const total = rows.reduce((s, r) => s + r.checkIns, 0);
	if (total === 0) return `No check-ins in the last ${rows.length} days.`;
	const top = busiest(rows, (r) => r.checkIns)!;
	const mostMembers = Math.max(...rows.map((r) => r.members));
	return `${plural(total, 'check-in')} in the last ${rows.length} days, by at most ${plural(mostMembers, 'member')} a day; the busiest day was ${longDay(top.day)}, with ${top.checkIns}.`;
}

export function describeVotes(rows: NonNullable<Insights['votesPerReviewer']>): string {
	if (rows.length === 0) return 'No reviewer has voted yet.';
	const votes = rows.reduce((s, r) => s + r.approve + r.reject + r.abstain, 0);
	const top = rows[0]!;
	return `${plural(rows.length, 'reviewer')} hold ${plural(votes, 'current vote')}; the most active, ${shortAddress(top.reviewer)}, holds ${top.approve + top.reject + top.abstain}.`;
}
