/**
 * What a move asks of its inputs (reason, tx hash), as messages by field name: shared by the server,
 * which refuses with them (400), and the browser, which shows them before a confirm dialog opens so
 * that an admin never confirms "This is final" only to be refused for an empty reason.
 */
import { parseReapplyAfter } from './asks';
import { LABELS, TX_HASH, needsOf, stateLabel, type Field } from './transitions';

export const TX_HASH_SHAPE = 'Transaction hash must be 0x followed by 64 hexadecimal characters.';

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
	if (asking && !reason && !input.asks)
		problems.reason = 'A reason or a comment on at least one answer is needed to ask for more information.';
	else if (needs.reason && !reason && !asking)
		problems.reason = `A reason is needed to move ${LABELS[field].toLowerCase()} to ${stateLabel(to)}.`;
	if (input.asks && !asking)
		problems.ask = 'Comments on answers go only with “Ask for more information”: clear them to make this move.';
	if (reapplyAfter && !(field === 'review' && to === 'rejected'))
		problems.reapplyAfter = 'A date to apply again goes only with “Reject”: clear it to make this move.';
	else if (reapplyAfter) {
		const parsed = parseReapplyAfter(reapplyAfter, now);
		if ('error' in parsed) problems.reapplyAfter = parsed.error;
	}
	if (field === 'review' && txHash) problems.txHash = 'A review decision takes no transaction hash.';
	else if (txHash && !TX_HASH.test(txHash)) problems.txHash = TX_HASH_SHAPE;
	else if (needs.txHash && !txHash)
		problems.txHash = `The transaction hash of the on-chain step is needed to record ${stateLabel(to)}.`;
	return problems;
}
