import { review_vote_abstain } from '$lib/paraglide/messages/review_vote_abstain.js';
import { review_vote_approve } from '$lib/paraglide/messages/review_vote_approve.js';
import { review_vote_reject } from '$lib/paraglide/messages/review_vote_reject.js';
import { review_waited_days } from '$lib/paraglide/messages/review_waited_days.js';
import { review_waited_hours } from '$lib/paraglide/messages/review_waited_hours.js';
import { review_waited_minutes } from '$lib/paraglide/messages/review_waited_minutes.js';
import { getLocale } from '$lib/paraglide/runtime';
import { formatterCache, numberText } from '../layout/format';
import type { VoteChoice } from '$lib/reviews/rubric';

// The reviewer's words that code builds: vote choices, counts, means and waits, in the page's locale.

const VOTE_MESSAGES: Record<VoteChoice, () => string> = {
	approve: review_vote_approve,
	reject: review_vote_reject,
	abstain: review_vote_abstain
};

/** "Approve", "Reject", "Abstain" in the page's locale; an unknown choice as it is stored. */
export const voteLabel = (choice: string): string =>
	choice in VOTE_MESSAGES ? VOTE_MESSAGES[choice as VoteChoice]() : choice;

/** A count in the page's locale ("1,234", "1.234"): every row of the review table shows a few. */
export const countText = numberText;

const oneDecimal = formatterCache(
	(locale) => new Intl.NumberFormat(locale, { minimumFractionDigits: 1, maximumFractionDigits: 1 })
);
/** A mean score with one decimal ("3.7", "3,7"); "—" without one. */
export const meanText = (mean: number | null): string => (mean === null ? '—' : oneDecimal(getLocale()).format(mean));

/** How long since `from`, counted against the server's `now` so both renderings agree: "40 min", "5 h", "12 d". */
export function waitedText(from: string, now: string): string {
	const minutes = Math.max(0, Math.floor((Date.parse(now) - Date.parse(from)) / 60_000));
	if (minutes < 60) return review_waited_minutes({ count: minutes });
	const hours = Math.floor(minutes / 60);
	return hours < 48 ? review_waited_hours({ count: hours }) : review_waited_days({ count: Math.floor(hours / 24) });
}
