import { BULK_MAX } from '../platform/limits';
import { ownEntry } from '../platform/own-entry';

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
	'eligible' // eligibility on chain (#28)
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

/** "1,000+" once a count reached its cap. */
export const cappedCount = (n: number) =>
	n > COUNT_CAP ? `${COUNT_CAP.toLocaleString('en')}+` : n.toLocaleString('en');

/** How long since `from`, counted against the server's `now` so both renderings agree: "40 min", "5 h", "12 d". */
export function waited(from: string, now: string): string {
	const minutes = Math.max(0, Math.floor((Date.parse(now) - Date.parse(from)) / 60_000));
	if (minutes < 60) return `${minutes} min`;
	const hours = Math.floor(minutes / 60);
	return hours < 48 ? `${hours} h` : `${Math.floor(hours / 24)} d`;
}

const DONE: Record<string, (who: string) => string> = {
	'review.approved': (who) => `Approved ${who}`,
	'review.rejected': (who) => `Rejected ${who}`,
	'review.needs_info': (who) => `Asked ${who} for more information`,
	'allowlist.added': (who) => `Recorded ${who} as added to the allowlist`,
	'allowlist.failed': (who) => `Recorded a failed allowlist step for ${who}`,
	'distribution.sent': (who) => `Recorded tokens sent to ${who}`,
	'distribution.failed': (who) => `Recorded a failed token distribution for ${who}`
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

export const applicationCount = (n: number) => `${n} application${n === 1 ? '' : 's'}`;

const QUESTIONS: Record<string, (who: string) => string> = {
	'review.approved': (who) => `Approve ${who}?`,
	'review.rejected': (who) => `Reject ${who}?`,
	'allowlist.added': (who) => `Record ${who} as added to the allowlist?`,
	'distribution.sent': (who) => `Record tokens sent to ${who}?`
};

/** The confirm step's question before a final move ("Approve 5 applications?"). */
export const confirmQuestion = (field: string, to: string, who: string) =>
	(ownEntry(QUESTIONS, `${field}.${to}`) ?? ((w: string) => `Move ${field} of ${w} to ${to}?`))(who);

const CONSEQUENCES: Record<string, (who: string) => string> = {
	'review.approved': (who) => `${who} is told they are approved; the allowlist and token steps open.`,
	'review.rejected': (who) => `${who} is told they were not accepted, with the reason, and may apply again.`,
	'allowlist.added': () => 'The allowlist step is recorded as done, with this transaction hash.',
	'distribution.sent': () => 'The token distribution is recorded as sent, with this transaction hash.'
};

/** What a final move does, said in its confirm step before "This is final: it cannot be undone." */
export const finalConsequence = (field: string, to: string, count = 1) =>
	ownEntry(CONSEQUENCES, `${field}.${to}`)?.(count === 1 ? 'The applicant' : 'Each applicant') ?? '';
