/**
 * What a move asks of its inputs (reason, tx hash), as messages by field name: shared by the server,
 * which refuses with them (400), and the browser, which shows them before a confirm dialog opens so
 * that an admin never confirms "This is final" only to be refused for an empty reason.
 */
import { parseReapplyAfter } from './asks';
import { admin_action_ask } from '$lib/paraglide/messages/admin_action_ask.js';
import { admin_action_reject } from '$lib/paraglide/messages/admin_action_reject.js';
import { admin_problem_ask_only } from '$lib/paraglide/messages/admin_problem_ask_only.js';
import { admin_problem_ask_reason } from '$lib/paraglide/messages/admin_problem_ask_reason.js';
import { admin_problem_reapply_only } from '$lib/paraglide/messages/admin_problem_reapply_only.js';
import { admin_problem_reason } from '$lib/paraglide/messages/admin_problem_reason.js';
import { admin_problem_review_tx } from '$lib/paraglide/messages/admin_problem_review_tx.js';
import { admin_problem_tx_needed } from '$lib/paraglide/messages/admin_problem_tx_needed.js';
import { admin_tx_hash_shape } from '$lib/paraglide/messages/admin_tx_hash_shape.js';
import { getLocale } from '$lib/paraglide/runtime';
import { TX_HASH, needsOf, type Field } from './transitions';
import { fieldName, stateName } from './admin-words';

/** Why a tx hash is refused for its shape, in the page's locale. */
export const txHashShape = () => admin_tx_hash_shape();

/** What a move's inputs may be refused for, by field name (`ask` for the first comment on an answer). */
export type MoveProblems = Partial<Record<'reason' | 'txHash' | 'reapplyAfter' | 'ask', string>>;

/**
 * The problems of a move's reason, tx hash, comments on answers (`asks`: how many were written) and
 * date to apply again, blanks around them ignored as the server trims them. Empty when the move may be
 * sent; the server still checks everything else (and this again).
 */
export function moveInputProblems(
	field: Field,
	to: string,
	input: { reason?: string | null; txHash?: string | null; asks?: number; reapplyAfter?: string | null },
	now = new Date()
): MoveProblems {
	const problems: MoveProblems = {};
	const reason = (input.reason ?? '').trim();
	const txHash = (input.txHash ?? '').trim();
	const reapplyAfter = (input.reapplyAfter ?? '').trim();
	const asking = field === 'review' && to === 'needs_info';
	const needs = needsOf(field, to);
	if (asking && !reason && !input.asks) problems.reason = admin_problem_ask_reason();
	else if (needs.reason && !reason && !asking)
		problems.reason = admin_problem_reason({
			field: fieldName(field).toLocaleLowerCase(getLocale()),
			state: stateName(to)
		});
	if (input.asks && !asking) problems.ask = admin_problem_ask_only({ action: admin_action_ask() });
	if (reapplyAfter && !(field === 'review' && to === 'rejected'))
		problems.reapplyAfter = admin_problem_reapply_only({ action: admin_action_reject() });
	else if (reapplyAfter) {
		const parsed = parseReapplyAfter(reapplyAfter, now);
		if ('error' in parsed) problems.reapplyAfter = parsed.error;
	}
	if (field === 'review' && txHash) problems.txHash = admin_problem_review_tx();
	else if (txHash && !TX_HASH.test(txHash)) problems.txHash = txHashShape();
	else if (needs.txHash && !txHash) problems.txHash = admin_problem_tx_needed({ state: stateName(to) });
	return problems;
}
