/**
 * The permitted moves of an application's three state fields (docs/transitions.md).
 * Pure and shared: the server decides with it, the admin page offers only what it permits.
 */
import { ownEntry } from '../platform/own-entry';
import { application_badge_approved } from '$lib/paraglide/messages/application_badge_approved.js';
import { application_badge_long } from '$lib/paraglide/messages/application_badge_long.js';
import { application_badge_needs_info } from '$lib/paraglide/messages/application_badge_needs_info.js';
import { application_badge_pending } from '$lib/paraglide/messages/application_badge_pending.js';
import { application_badge_rejected } from '$lib/paraglide/messages/application_badge_rejected.js';
import { application_badge_withdrawn } from '$lib/paraglide/messages/application_badge_withdrawn.js';
import { application_field_allowlist } from '$lib/paraglide/messages/application_field_allowlist.js';
import { application_field_distribution } from '$lib/paraglide/messages/application_field_distribution.js';
import { application_field_review } from '$lib/paraglide/messages/application_field_review.js';
import { application_state_added } from '$lib/paraglide/messages/application_state_added.js';
import { application_state_approved } from '$lib/paraglide/messages/application_state_approved.js';
import { application_state_failed } from '$lib/paraglide/messages/application_state_failed.js';
import { application_state_needs_info } from '$lib/paraglide/messages/application_state_needs_info.js';
import { application_state_pending } from '$lib/paraglide/messages/application_state_pending.js';
import { application_state_rejected } from '$lib/paraglide/messages/application_state_rejected.js';
import { application_state_sent } from '$lib/paraglide/messages/application_state_sent.js';
import { application_state_withdrawn } from '$lib/paraglide/messages/application_state_withdrawn.js';
import { application_step_not_started } from '$lib/paraglide/messages/application_step_not_started.js';
import { application_step_waiting_added } from '$lib/paraglide/messages/application_step_waiting_added.js';
import { application_step_waiting_sent } from '$lib/paraglide/messages/application_step_waiting_sent.js';
import { application_tx_not_checked } from '$lib/paraglide/messages/application_tx_not_checked.js';
import { application_tx_not_checked_title } from '$lib/paraglide/messages/application_tx_not_checked_title.js';
import { application_tx_unverified } from '$lib/paraglide/messages/application_tx_unverified.js';
import { application_tx_unverified_title } from '$lib/paraglide/messages/application_tx_unverified_title.js';
import { application_tx_verified } from '$lib/paraglide/messages/application_tx_verified.js';
import { application_tx_verified_title } from '$lib/paraglide/messages/application_tx_verified_title.js';
import { application_withdraw_only_applicant } from '$lib/paraglide/messages/application_withdraw_only_applicant.js';

export const FIELDS = ['review', 'allowlist', 'distribution'] as const;
export type Field = (typeof FIELDS)[number];

/** Each field's states: the source of the database enums, the admin filters and the checks here. */
export const STATES = {
	review: ['pending', 'needs_info', 'approved', 'rejected', 'withdrawn'],
	allowlist: ['pending', 'added', 'failed'],
	distribution: ['pending', 'sent', 'failed']
} as const satisfies Record<Field, readonly [string, ...string[]]>;

export type ReviewState = (typeof STATES.review)[number];
export type AllowlistState = (typeof STATES.allowlist)[number];
export type DistributionState = (typeof STATES.distribution)[number];

export interface ApplicationStates {
	review: ReviewState;
	allowlist: AllowlistState;
	distribution: DistributionState;
}

export interface Move {
	field: Field;
	from: string;
	to: string;
	needsReason: boolean;
	needsTxHash: boolean;
	/** Only the applicant makes this move, by re-submitting (never an admin). */
	byApplicant: boolean;
}

const move = (
	field: Field,
	from: string,
	to: string,
	needs: { reason?: boolean; txHash?: boolean; byApplicant?: boolean } = {}
): Move => ({
	field,
	from,
	to,
	needsReason: needs.reason ?? false,
	needsTxHash: needs.txHash ?? false,
	byApplicant: needs.byApplicant ?? false
});

/** Every permitted move; anything not listed is refused. */
export const MOVES: readonly Move[] = [
	move('review', 'pending', 'needs_info', { reason: true }),
	move('review', 'pending', 'approved'),
	move('review', 'pending', 'rejected', { reason: true }),
	move('review', 'needs_info', 'approved'),
	move('review', 'needs_info', 'rejected', { reason: true }),
	move('review', 'needs_info', 'pending', { byApplicant: true }),
	move('review', 'pending', 'withdrawn', { byApplicant: true }),
	move('review', 'needs_info', 'withdrawn', { byApplicant: true }),
	move('allowlist', 'pending', 'added', { txHash: true }),
	move('allowlist', 'pending', 'failed', { reason: true }),
	move('allowlist', 'failed', 'added', { txHash: true }),
	move('distribution', 'pending', 'sent', { txHash: true }),
	move('distribution', 'pending', 'failed', { reason: true }),
	move('distribution', 'failed', 'sent', { txHash: true })
];

/** States that are never left. */
export const TERMINAL: { readonly [F in Field]: readonly string[] } = {
	review: ['approved', 'rejected', 'withdrawn'],
	allowlist: ['added'],
	distribution: ['sent']
};

export const isTerminal = (field: Field, state: string) => TERMINAL[field].includes(state);

export const isState = (field: Field, state: string) => (STATES[field] as readonly string[]).includes(state);

/** What moving `field` to `to` asks for, whatever the from-state (the needs depend on the target only). */
export function needsOf(field: Field, to: string): { reason: boolean; txHash: boolean } {
	const moves = MOVES.filter((move) => move.field === field && move.to === to);
	return { reason: moves.some((move) => move.needsReason), txHash: moves.some((move) => move.needsTxHash) };
}

/** Why an admin may not move `field` of `app` to `to` now, or null when the table permits it. */
export function refusal(app: ApplicationStates, field: Field, to: string): string | null {
	const from = app[field];
	if (from === to) return `${LABELS[field]} is already ${stateLabel(to)}.`;
	if (isTerminal(field, from)) return `${LABELS[field]} is ${stateLabel(from)}, which is final.`;
	if (field !== 'review' && app.review !== 'approved') {
		return `${LABELS[field]} can change only after the application is approved.`;
	}
	const found = MOVES.find((move) => move.field === field && move.from === from && move.to === to);
	if (!found) return `${LABELS[field]} cannot move from ${stateLabel(from)} to ${stateLabel(to)}.`;
	if (found.byApplicant)
		return to === 'withdrawn'
			? application_withdraw_only_applicant()
			: 'Only the applicant returns an application to pending, by re-submitting it.';
	return null;
}

/** The moves an admin may make on `app` now, in table order. */
export function permittedMoves(app: ApplicationStates): Move[] {
	return MOVES.filter((move) => app[move.field] === move.from && refusal(app, move.field, move.to) === null);
}

/** Each field's name in the page's locale (read when used: the getters call the messages). */
export const LABELS: Readonly<Record<Field, string>> = {
	get review() {
		return application_field_review();
	},
	get allowlist() {
		return application_field_allowlist();
	},
	get distribution() {
		return application_field_distribution();
	}
};

const STATE_LABELS: Record<string, () => string> = {
	pending: application_state_pending,
	needs_info: application_state_needs_info,
	approved: application_state_approved,
	rejected: application_state_rejected,
	withdrawn: application_state_withdrawn,
	added: application_state_added,
	sent: application_state_sent,
	failed: application_state_failed
};

export const stateLabel = (state: string) => ownEntry(STATE_LABELS, state)?.() ?? state;

/** How a state reads to a person, and its colour: done, stopped, asked (needs info), waiting or not started. */
export interface StateWords {
	/** With the field's name where the state alone would be unclear: "Allowlist: not started". */
	long: string;
	/** The state alone, for a column that names the field: "Not started". */
	short: string;
	tone: 'done' | 'stopped' | 'asked' | 'waiting' | 'not-started';
}

const REVIEW_WORDS: Record<string, [() => string, StateWords['tone']]> = {
	pending: [application_badge_pending, 'waiting'],
	needs_info: [application_badge_needs_info, 'asked'],
	approved: [application_badge_approved, 'done'],
	rejected: [application_badge_rejected, 'stopped'],
	withdrawn: [application_badge_withdrawn, 'not-started']
};

/**
 * A state in words (issue 45): the allowlist and the token "not started" while the review has not
 * approved (they cannot move before, so "pending" would read as waiting for a step that may never come).
 */
export function stateWords(field: Field, state: string, review?: string): StateWords {
	const cap = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
	if (field === 'review') {
		const known = ownEntry(REVIEW_WORDS, state);
		const [words, tone] = known ? [known[0](), known[1]] : [cap(stateLabel(state)), 'waiting' as const];
		return { long: words, short: words, tone };
	}
	let words: string;
	let tone: StateWords['tone'];
	if (state === 'pending' && review !== undefined && review !== 'approved')
		[words, tone] = [application_step_not_started(), 'not-started'];
	else if (state === 'pending')
		[words, tone] = [
			field === 'allowlist' ? application_step_waiting_added() : application_step_waiting_sent(),
			'waiting'
		];
	else if (state === 'failed') [words, tone] = [application_state_failed(), 'stopped'];
	else [words, tone] = [stateLabel(state), 'done'];
	return { long: application_badge_long({ field: LABELS[field], state: words }), short: cap(words), tone };
}

/** A transaction hash as stored: `0x` + 64 hex, lowercase. */
export const TX_HASH = /^0x[0-9a-fA-F]{64}$/;

export const explorerTxUrl = (hash: string) => `https://polygonscan.com/tx/${hash}`;

/**
 * How the admin screen shows a recorded tx hash's check (docs/transitions.md "Checking the tx hash
 * on chain"): `verified` true once chain 137 confirmed it; null is "unverified" when the portal
 * looks hashes up (no answer in time, or still pending) and "not checked" when it does not.
 */
export function txCheckLabel(verified: boolean | null, checksOn: boolean): { text: string; title: string } {
	if (verified) return { text: application_tx_verified(), title: application_tx_verified_title() };
	if (checksOn) return { text: application_tx_unverified(), title: application_tx_unverified_title() };
	return { text: application_tx_not_checked(), title: application_tx_not_checked_title() };
}
