/**
 * What a move asks of its inputs (reason, tx hash), as messages by field name: shared by the server,
 * which refuses with them (400), and the browser, which shows them before a confirm dialog opens so
 * that an admin never confirms "This is final" only to be refused for an empty reason.
 */
import { LABELS, TX_HASH, needsOf, stateLabel, type Field } from './transitions';

export const TX_HASH_SHAPE = 'Transaction hash must be 0x followed by 64 hexadecimal characters.';

/**
 * The problems of a move's reason and tx hash, blanks around them ignored as the server trims them.
 * Empty when the move may be sent; the server still checks everything else (and this again).
 */
export function moveInputProblems(
	field: Field,
	to: string,
	input: { reason?: string | null; txHash?: string | null }
): Partial<Record<'reason' | 'txHash', string>> {
	const problems: Partial<Record<'reason' | 'txHash', string>> = {};
	const reason = (input.reason ?? '').trim();
	const txHash = (input.txHash ?? '').trim();
	const needs = needsOf(field, to);
	if (needs.reason && !reason)
		problems.reason = `A reason is needed to move ${LABELS[field].toLowerCase()} to ${stateLabel(to)}.`;
	if (field === 'review' && txHash) problems.txHash = 'A review decision takes no transaction hash.';
	else if (txHash && !TX_HASH.test(txHash)) problems.txHash = TX_HASH_SHAPE;
	else if (needs.txHash && !txHash)
		problems.txHash = `The transaction hash of the on-chain step is needed to record ${stateLabel(to)}.`;
	return problems;
}
