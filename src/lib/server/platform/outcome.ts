import type { RateLimitRefusal } from './rate-limit';
import type { EligibilityRefusal } from '$lib/eligibility/rules';
import { sqlState } from '../db/errors';
import type { Result } from '$lib/platform/result';
import { m } from '$lib/paraglide/messages';

/**
 * What every server operation answers (docs/decisions/0026-one-outcome.md), the one result shape of
 * `$lib/platform/result` with an HTTP status: its result, or a failure
 * carrying the HTTP status it is answered with, a code in the words of the JSON error body
 * (docs/http.md) and a message for people. A form action renders the page with the status
 * (`refuse`); a JSON endpoint answers `{ error: { code, message } }` (`jsonFailure`).
 */
export type Outcome<T> = Result<T, Failure>;

/** A message for each form field that was not accepted, by field name. */
export type FieldErrors = Record<string, string>;

/** One of several things an operation could not do, and why (a bulk move names each application). */
export interface RefusedItem {
	id: string;
	displayName: string;
	why: string;
}

export type Failure =
	| { ok: false; status: 400; code: 'invalid_request'; message: string; errors: FieldErrors }
	| { ok: false; status: 401; code: 'unauthenticated'; message: string }
	| { ok: false; status: 403; code: 'forbidden'; message: string }
	| { ok: false; status: 403; code: 'not_eligible'; message: string; eligibility: EligibilityRefusal }
	| { ok: false; status: 404; code: 'not_found'; message: string }
	// reapply_later: a new application before the date a rejection named (`reapplyAfter`: YYYY-MM-DD).
	// round_closed: a new application while its programme has no open round (`nextOpensAt`: ISO 8601, or null).
	// locked: an edit of an application that is no longer the applicant's to change (issue 58; `message` says why).
	| {
			ok: false;
			status: 409;
			code: 'conflict' | 'reapply_later' | 'round_closed' | 'locked';
			message: string;
			refused?: RefusedItem[];
			reapplyAfter?: string;
			nextOpensAt?: string | null;
	  }
	// A draft over its size limit (issue 58): nothing stored, what was typed stays in the page.
	| { ok: false; status: 413; code: 'too_large'; message: string }
	| { ok: false; status: 429; code: 'rate_limited'; message: string; retryAfterSeconds: number; resetAt: string }
	| { ok: false; status: 503; code: 'eligibility_unavailable' | 'files_unavailable'; message: string };

export type FailureOf<S extends Failure['status']> = Extract<Failure, { status: S }>;

/** A 400 naming what is wrong with each field. */
export const invalid = (errors: FieldErrors): FailureOf<400> => ({
	ok: false,
	status: 400,
	code: 'invalid_request',
	message: m.form_invalid(),
	errors
});

/** A 400 for one field. */
export const fieldError = (field: string, message: string): FailureOf<400> => invalid({ [field]: message });

/** A 409: the request is well-formed but the current state does not allow it. */
export const conflict = (message: string, refused?: RefusedItem[]): FailureOf<409> =>
	refused
		? { ok: false, status: 409, code: 'conflict', message, refused }
		: { ok: false, status: 409, code: 'conflict', message };

/** A 403: this member may not do this here (a reviewer voting on their own application). */
export const forbidden = (message: string): FailureOf<403> => ({ ok: false, status: 403, code: 'forbidden', message });

export const notFound = (message: string): FailureOf<404> => ({ ok: false, status: 404, code: 'not_found', message });

/** The 401 of a write whose session's member row is gone (e.g. a reset database): sign in again (its message in the request's locale). */
export const memberMissing: FailureOf<401> = {
	ok: false,
	status: 401,
	code: 'unauthenticated',
	get message() {
		return m.form_member_missing();
	}
};

/** The 429 answer for a spent per-address limit, saying how long until it may be tried again. */
export function rateLimited(refused: RateLimitRefusal, now = Date.now()): FailureOf<429> {
	const retryAfterSeconds = Math.max(1, Math.ceil((refused.resetAt.getTime() - now) / 1000));
	return {
		ok: false,
		status: 429,
		code: 'rate_limited',
		message: m.form_rate_limited({ why: refused.message, wait: formatWait(retryAfterSeconds) }),
		retryAfterSeconds,
		resetAt: refused.resetAt.toISOString()
	};
}

/** "23 hours 5 minutes", "12 minutes", "40 seconds" (in the request's locale). */
export function formatWait(seconds: number): string {
	if (seconds < 60) return m.form_wait_seconds({ count: seconds });
	const minutes = Math.ceil(seconds / 60);
	if (minutes < 60) return m.form_wait_minutes({ count: minutes });
	const hours = Math.floor(minutes / 60);
	const rest = minutes % 60;
	return rest
		? m.form_wait_hours_minutes({
				hours: m.form_wait_hours({ count: hours }),
				minutes: m.form_wait_minutes({ count: rest })
			})
		: m.form_wait_hours({ count: hours });
}

/** The integrity-constraint SQLSTATEs a write may hit because of what a user sent, not a fault. */
const CONSTRAINT_KINDS = { '23505': 'unique', '23503': 'foreignKey', '23514': 'check' } as const;
type ConstraintKind = (typeof CONSTRAINT_KINDS)[keyof typeof CONSTRAINT_KINDS];

/**
 * The one place database errors become outcomes: the failure the caller gave for the violated
 * constraint's kind (a unique index, a foreign key, a check), or `err` rethrown when it is anything
 * else (a fault: the caller's 500, or withDatabase's 503 for an outage).
 */
export function failureOfDatabaseError(err: unknown, answers: Partial<Record<ConstraintKind, Failure>>): Failure {
	const state = sqlState(err);
	const kind = state && state in CONSTRAINT_KINDS ? CONSTRAINT_KINDS[state as keyof typeof CONSTRAINT_KINDS] : null;
	const answer = kind ? answers[kind] : undefined;
	if (!answer) throw err;
	return answer;
}
