import type { Application } from '../db/schema';

/** What a member's applications say about a new submission (docs/review-guide.md). */
export type ApplyStanding<A> =
	| { may: 'apply' }
	/** Review is needs_info: the answer replaces this application's fields. */
	| { may: 'resubmit'; application: A }
	/** An application is under review (pending, or past review): a second one is refused (409). */
	| { may: 'not'; reason: 'active' }
	/** A rejection named a day: no new application before it (409 reapply_later). */
	| { may: 'not'; reason: 'wait'; until: Date };

/**
 * The "may apply" rule, in one place: the apply page (whether to show the form), and
 * submitApplication (before reading the chain, then again inside its transaction) all ask it.
 * A member has at most one application that is neither rejected nor withdrawn; a rejection may name a day before
 * which no new application is taken (the latest such day of the member's applications counts).
 */
export function applyStanding<A extends Pick<Application, 'review' | 'reapplyAfter'>>(
	applications: readonly A[],
	now: Date = new Date()
): ApplyStanding<A> {
	// A withdrawn application is no longer live (issue 58): the member may apply again at once.
	const active = applications.find((a) => a.review !== 'rejected' && a.review !== 'withdrawn');
	if (active)
		return active.review === 'needs_info' ? { may: 'resubmit', application: active } : { may: 'not', reason: 'active' };
	const waits = applications
		.map((a) => a.reapplyAfter)
		.filter((d): d is Date => d !== null && d.getTime() > now.getTime());
	if (waits.length) return { may: 'not', reason: 'wait', until: new Date(Math.max(...waits.map((d) => d.getTime()))) };
	return { may: 'apply' };
}
