import type { Insights } from '$lib/server/insights/insights';
import { insights_checkins_none } from '$lib/paraglide/messages/insights_checkins_none.js';
import { insights_checkins_summary } from '$lib/paraglide/messages/insights_checkins_summary.js';
import { insights_funnel_none } from '$lib/paraglide/messages/insights_funnel_none.js';
import { insights_funnel_summary } from '$lib/paraglide/messages/insights_funnel_summary.js';
import { insights_reviewer_named } from '$lib/paraglide/messages/insights_reviewer_named.js';
import { insights_votes_none } from '$lib/paraglide/messages/insights_votes_none.js';
import { insights_votes_summary } from '$lib/paraglide/messages/insights_votes_summary.js';
import { insights_waits_none } from '$lib/paraglide/messages/insights_waits_none.js';
import { insights_waits_summary } from '$lib/paraglide/messages/insights_waits_summary.js';
import { insights_weekly_none } from '$lib/paraglide/messages/insights_weekly_none.js';
import { insights_weekly_summary } from '$lib/paraglide/messages/insights_weekly_summary.js';
import { getLocale } from '$lib/paraglide/runtime';
import { formatterCache, numberText } from '../layout/format';

// The words of the charts: their labels and text alternatives, written from the same numbers they draw,
// in the page's locale (docs/translations.md).

/** The page's locale for dates: the portal's English writes the day first ("14 Sep"). */
const dateLocale = () => {
	const locale = getLocale();
	return locale === 'en' ? 'en-GB' : locale;
};
const utcDay = (day: string) => new Date(`${day}T00:00:00Z`);

/** "14 Sep" for a YYYY-MM-DD day (UTC), as the x axes label weeks and days. */
const shortDays = formatterCache(
	(locale) => new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', timeZone: 'UTC' })
);
const longDays = formatterCache((locale) => new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' }));
// Each chart labels dozens of days: one formatter per locale (src/lib/components/layout/format.ts).
export const dayLabel = (day: string) => shortDays(dateLocale()).format(utcDay(day));
export const longDay = (day: string) => longDays(dateLocale()).format(utcDay(day));

/**
 * Seconds as days, the unit of waiting times: one decimal from a day up; under a day two significant
 * digits and never less than 0.01 (a quarter of an hour), so that a decision made the same day is drawn
 * above 0, on an axis that fits it, instead of as a dot at 0 (issue 61).
 */
export const days = (seconds: number) => {
	const d = Math.max(0, seconds) / 86_400;
	return d >= 1 ? Math.round(d * 10) / 10 : Math.max(0.01, Number(d.toPrecision(2)));
};

/** A number in the page's locale ("1,234", "1.234", "1.5"). */
export { numberText };

const percents = formatterCache(
	(locale) => new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1 })
);
/** A share as a percentage with at most one decimal ("33.3%"). */
export const percentText = (share: number) => percents(getLocale()).format(share);

export const shortAddress = (address: string) => `${address.slice(0, 6)}…${address.slice(-4)}`;

/**
 * A reviewer as the charts name them: their display name with the short address, or the address alone
 * when they never applied (issue 61: reviewers are people, not hex); `names` by lower-case address.
 */
export const reviewerLabel = (address: string, names: Record<string, string> = {}) => {
	const name = names[address.toLowerCase()];
	return name ? insights_reviewer_named({ name, address: shortAddress(address) }) : shortAddress(address);
};

function busiest<T>(rows: T[], value: (row: T) => number): T | null {
	return rows.reduce<T | null>((best, row) => (best === null || value(row) > value(best) ? row : best), null);
}

export function describeWeekly(rows: Insights['applicationsPerWeek']): string {
	const sum = (key: 'pending' | 'needsInfo' | 'approved' | 'rejected' | 'withdrawn') =>
		rows.reduce((s, r) => s + r[key], 0);
	const total = sum('pending') + sum('needsInfo') + sum('approved') + sum('rejected') + sum('withdrawn');
	const weeks = numberText(rows.length);
	if (total === 0) return insights_weekly_none({ weeks });
	const all = (r: (typeof rows)[number]) => r.pending + r.needsInfo + r.approved + r.rejected + r.withdrawn;
	const top = busiest(rows, all)!;
	const topCount = all(top);
	return insights_weekly_summary({
		total,
		weeks,
		pending: numberText(sum('pending')),
		needsInfo: numberText(sum('needsInfo')),
		approved: numberText(sum('approved')),
		rejected: numberText(sum('rejected')),
		withdrawn: numberText(sum('withdrawn')),
		date: longDay(top.week),
		top: numberText(topCount)
	});
}

export function describeFunnel(f: Insights['funnel']): string {
	if (f.submitted === 0) return insights_funnel_none();
	return insights_funnel_summary({
		submitted: f.submitted,
		approved: numberText(f.approved),
		allowlisted: numberText(f.allowlisted),
		sent: numberText(f.sent)
	});
}

export function describeWaits(rows: Insights['timeToFirstDecision']): string {
	const decided = rows.reduce((s, r) => s + r.decided, 0);
	const waiting = numberText(rows.reduce((s, r) => s + r.waiting, 0));
	const weeks = numberText(rows.length);
	const latest = [...rows].reverse().find((r) => r.medianSeconds !== null);
	if (!latest) return insights_waits_none({ weeks, waiting });
	return insights_waits_summary({
		decided,
		weeks,
		waiting,
		date: longDay(latest.week),
		median: numberText(days(latest.medianSeconds!)),
		p90: numberText(days(latest.p90Seconds!))
	});
}

export function describeCheckIns(rows: Insights['checkInsPerDay']): string {
	const total = rows.reduce((s, r) => s + r.checkIns, 0);
	if (total === 0) return insights_checkins_none({ days: numberText(rows.length) });
	const top = busiest(rows, (r) => r.checkIns)!;
	const mostMembers = Math.max(...rows.map((r) => r.members));
	return insights_checkins_summary({
		total,
		members: mostMembers,
		days: numberText(rows.length),
		date: longDay(top.day),
		top: numberText(top.checkIns)
	});
}

export function describeVotes(
	rows: NonNullable<Insights['votesPerReviewer']>,
	names: Record<string, string> = {}
): string {
	if (rows.length === 0) return insights_votes_none();
	const votes = rows.reduce((s, r) => s + r.approve + r.reject + r.abstain, 0);
	const top = rows[0]!;
	return insights_votes_summary({
		reviewers: rows.length,
		votes,
		address: reviewerLabel(top.reviewer, names),
		top: numberText(top.approve + top.reject + top.abstain)
	});
}
