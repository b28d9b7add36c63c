import { BULK_MAX } from '../platform/limits';
import { ownEntry } from '../platform/own-entry';
import { dayText } from './asks';
import { admin_application_count } from '$lib/paraglide/messages/admin_application_count.js';
import { admin_confirm_added } from '$lib/paraglide/messages/admin_confirm_added.js';
import { admin_confirm_approve } from '$lib/paraglide/messages/admin_confirm_approve.js';
import { admin_confirm_label } from '$lib/paraglide/messages/admin_confirm_label.js';
import { admin_confirm_move } from '$lib/paraglide/messages/admin_confirm_move.js';
import { admin_confirm_question } from '$lib/paraglide/messages/admin_confirm_question.js';
import { admin_confirm_reject } from '$lib/paraglide/messages/admin_confirm_reject.js';
import { admin_confirm_sent } from '$lib/paraglide/messages/admin_confirm_sent.js';
import { admin_consequence_added } from '$lib/paraglide/messages/admin_consequence_added.js';
import { admin_consequence_approved_each } from '$lib/paraglide/messages/admin_consequence_approved_each.js';
import { admin_consequence_approved_one } from '$lib/paraglide/messages/admin_consequence_approved_one.js';
import { admin_consequence_rejected_each } from '$lib/paraglide/messages/admin_consequence_rejected_each.js';
import { admin_consequence_rejected_one } from '$lib/paraglide/messages/admin_consequence_rejected_one.js';
import { admin_consequence_rejected_until_each } from '$lib/paraglide/messages/admin_consequence_rejected_until_each.js';
import { admin_consequence_rejected_until_one } from '$lib/paraglide/messages/admin_consequence_rejected_until_one.js';
import { admin_consequence_sent } from '$lib/paraglide/messages/admin_consequence_sent.js';
import { admin_done_added } from '$lib/paraglide/messages/admin_done_added.js';
import { admin_done_allowlist_failed } from '$lib/paraglide/messages/admin_done_allowlist_failed.js';
import { admin_done_approved } from '$lib/paraglide/messages/admin_done_approved.js';
import { admin_done_asked } from '$lib/paraglide/messages/admin_done_asked.js';
import { admin_done_distribution_failed } from '$lib/paraglide/messages/admin_done_distribution_failed.js';
import { admin_done_rejected } from '$lib/paraglide/messages/admin_done_rejected.js';
import { admin_done_sent } from '$lib/paraglide/messages/admin_done_sent.js';
import { admin_waited_days } from '$lib/paraglide/messages/admin_waited_days.js';
import { admin_waited_hours } from '$lib/paraglide/messages/admin_waited_hours.js';
import { admin_waited_minutes } from '$lib/paraglide/messages/admin_waited_minutes.js';
import { getLocale } from '$lib/paraglide/runtime';

/** The /admin review table's filters, search, order and cursor, as its query string carries them. */
export interface ReviewTableQuery {
	review?: string;
	allowlist?: string;
	distribution?: string;
	/** Part of an address, display name or contact. */
	q?: string;
	/** Eligibility on chain (#28): `yes` or `no`, eligible at submission. */
	eligible?: string;
	/** `oldest` (the default: longest waiting first), `newest`, or `score` (highest mean score first). */
	sort?: string;
	/** Votes (#27): `ready` (reached REVIEW_QUORUM current votes) or `needed`. */
	votes?: string;
	/** Programmes and rounds (#57): a programme's slug, a round's id. */
	program?: string;
	round?: string;
	/** Keyset cursors (`<created_at>_<id>`); `before=end` is the last page. */
	after?: string;
	before?: string;
}

/** Rows per page of the review table (in limits.ts with the other shared numbers). */
export { ADMIN_PAGE_SIZE } from '../platform/limits';
/** Counts stop here and show as "1,000+": counting further would read every matching row. */
export const COUNT_CAP = 1000;

const KEYS = [
	'review',
	'allowlist',
	'distribution',
	'q',
	'sort',
	'after',
	'before',
	'votes', // reviewers (#27)
	'eligible', // eligibility on chain (#28)
	'program', // programmes and rounds (#57)
	'round'
] as const;

/**
 * The URL of the /admin table: for its links (unset parts and the default order left out), for a
 * form that posts `action` and comes back to the same table, and for that redirect back, which keeps
 * the query string the form was posted with (`URLSearchParams`) minus the action's own `/name` key.
 */
export function reviewTableHref(query: ReviewTableQuery | URLSearchParams, action?: string): string {
	const params = new URLSearchParams();
	if (query instanceof URLSearchParams) {
		for (const [key, value] of query) if (!key.startsWith('/')) params.append(key, value);
	} else {
		for (const key of KEYS) {
			const value = query[key];
			if (value && !(key === 'sort' && value === 'oldest')) params.set(key, value);
		}
	}
	const parts = [action ? `/${action}` : '', params.toString()].filter(Boolean);
	return parts.length ? `/admin?${parts.join('&')}` : '/admin';
}

/** The table's filters without its cursor: the first page of the same selection. */
export const firstPage = ({ after: _a, before: _b, ...rest }: ReviewTableQuery): ReviewTableQuery => rest;

/** "1,000+" once a count reached its cap (numbers in the page's locale). */
export const cappedCount = (n: number) =>
	n > COUNT_CAP ? `${COUNT_CAP.toLocaleString(getLocale())}+` : n.toLocaleString(getLocale());

/** How long since `from`, counted against the server's `now` so both renderings agree: "40 min", "5 h", "12 d". */
export function waited(from: string, now: string): string {
	const minutes = Math.max(0, Math.floor((Date.parse(now) - Date.parse(from)) / 60_000));
	if (minutes < 60) return admin_waited_minutes({ count: minutes });
	const hours = Math.floor(minutes / 60);
	return hours < 48 ? admin_waited_hours({ count: hours }) : admin_waited_days({ count: Math.floor(hours / 24) });
}

const DONE: Record<string, (who: string) => string> = {
	'review.approved': (who) => admin_done_approved({ who }),
	'review.rejected': (who) => admin_done_rejected({ who }),
	'review.needs_info': (who) => admin_done_asked({ who }),
	'allowlist.added': (who) => admin_done_added({ who }),
	'allowlist.failed': (who) => admin_done_allowlist_failed({ who }),
	'distribution.sent': (who) => admin_done_sent({ who }),
	'distribution.failed': (who) => admin_done_distribution_failed({ who })
};

/**
 * The result line after a move ("Approved Ada"), from the `done=<field>.<to>` the redirect carries;
 * null for anything else, so nothing typed into a URL is ever echoed.
 */
export function doneMessage(done: string | null, who: string): string | null {
	const message = done ? ownEntry(DONE, done) : undefined;
	return message ? message(who) : null;
}

/** "Approved 5 applications" after a bulk move: `done` and `count` (1 to 100) as its redirect carries them. */
export function bulkDoneMessage(done: { move: string | null; count: string | null }): string | null {
	const n = /^[1-9]\d{0,2}$/.test(done.count ?? '') ? Number(done.count) : 0;
	return n >= 1 && n <= BULK_MAX ? doneMessage(done.move, applicationCount(n)) : null;
}

export const applicationCount = (n: number) => admin_application_count({ count: n });

const ACTIONS: Record<string, (who: string) => string> = {
	'review.approved': (who) => admin_confirm_approve({ who }),
	'review.rejected': (who) => admin_confirm_reject({ who }),
	'allowlist.added': (who) => admin_confirm_added({ who }),
	'distribution.sent': (who) => admin_confirm_sent({ who })
};

/** What a final move does to `who`, as a confirm step words it ("Approve 5 applications"). */
const confirmAction = (field: string, to: string, who: string) =>
	(ownEntry(ACTIONS, `${field}.${to}`) ?? ((w: string) => admin_confirm_move({ field, who: w, to })))(who);

/** The confirm step's question before a final move ("Approve 5 applications?"). */
export const confirmQuestion = (field: string, to: string, who: string) =>
	admin_confirm_question({ action: confirmAction(field, to, who) });

/** The confirm step's button ("Confirm: Approve 5 applications"). */
export const confirmLabel = (field: string, to: string, who: string) =>
	admin_confirm_label({ action: confirmAction(field, to, who) });

const CONSEQUENCES: Record<string, (count: number) => string> = {
	'review.approved': (count) => (count === 1 ? admin_consequence_approved_one() : admin_consequence_approved_each()),
	'review.rejected': (count) => (count === 1 ? admin_consequence_rejected_one() : admin_consequence_rejected_each()),
	'allowlist.added': () => admin_consequence_added(),
	'distribution.sent': () => admin_consequence_sent()
};

/**
 * What a final move does, said in its confirm step before "This is final: it cannot be undone." A
 * rejection that names a day to apply again (`reapplyAfter`, YYYY-MM-DD) says that day, not "may apply again".
 */
export function finalConsequence(field: string, to: string, count = 1, reapplyAfter = ''): string {
	if (field === 'review' && to === 'rejected' && /^\d{4}-\d{2}-\d{2}$/.test(reapplyAfter)) {
		const date = dayText(`${reapplyAfter}T00:00:00Z`);
		return count === 1
			? admin_consequence_rejected_until_one({ date })
			: admin_consequence_rejected_until_each({ date });
	}
	return ownEntry(CONSEQUENCES, `${field}.${to}`)?.(count) ?? '';
}

/** A form's `reapplyAfter` as text ('' when absent). */
export const reapplyText = (value: FormDataEntryValue | null) => (typeof value === 'string' ? value : '');

/** A final move that turns someone away: its confirm button is drawn in the danger colour. */
export const dangerousMove = (field: string, to: string) => field === 'review' && to === 'rejected';
