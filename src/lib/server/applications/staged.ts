import { sql } from 'drizzle-orm';
import { applications, rounds, type Application, type ApplicationEvent } from '../db/schema';

/**
 * A staged decision (docs/application-form.md "Programmes and rounds"): an approve or reject in a round
 * released together that is not released yet. The admin's view shows it as it is; its applicant keeps
 * seeing "in review" until the release (programs/release.ts), and nothing tells them before then.
 */

/** Whether the row's decision is staged: its round holds decisions and it is approved or rejected. */
export const stagedColumn = sql<boolean>`(${applications.review} in ('approved', 'rejected') and exists (
	select 1 from ${rounds} where ${rounds.id} = ${applications.roundId}
		and ${rounds.releaseMode} = 'together' and ${rounds.releasedAt} is null))`.mapWith(
	(v: unknown) => v === true || v === 't'
);

type Masked = Pick<Application, 'review' | 'allowlist' | 'distribution' | 'reapplyAfter'>;

/** An application with a staged decision as its applicant reads it: in review, nothing after it. */
export const maskStaged = <A extends Masked>(a: A): A => ({
	...a,
	review: 'pending',
	allowlist: 'pending',
	distribution: 'pending',
	reapplyAfter: null
});

/**
 * The audit rows its applicant may read of an application with a staged decision: those before the
 * decision (its last approve or reject), not the decision nor what came after it.
 */
export function eventsBeforeStaged<E extends Pick<ApplicationEvent, 'field' | 'toState'>>(events: readonly E[]): E[] {
	let at = events.length;
	for (let i = events.length - 1; i >= 0; i--) {
		const e = events[i]!;
		if (e.field === 'review' && (e.toState === 'approved' || e.toState === 'rejected')) {
			at = i;
			break;
		}
	}
	return events.slice(0, at);
}
