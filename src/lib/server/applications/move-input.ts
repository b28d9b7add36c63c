import * as v from 'valibot';
import { FIELDS, LABELS, STATES, TX_HASH, isState, needsOf, stateLabel } from '$lib/transitions';
import { textField, validate, type FieldErrors, type Outcome } from '../platform/forms';

/** The fields of `POST /admin?/transition` and the application page's `?/transition` (docs/http.md). */
export const TRANSITION_FIELDS = ['applicationId', 'field', 'to', 'reason', 'txHash', 'from'] as const;

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An application id as a form sends it: a UUID, any case, stored lowercase. */
export const applicationIdField = (label: string) =>
	v.pipe(
		textField(label, { min: 1, max: 36 }),
		v.check((s) => UUID.test(s), `${label} must be a UUID.`),
		v.transform((s) => s.toLowerCase())
	);

/** The move itself (field, to, reason, tx hash, from): one application's or a bulk's. */
export const moveEntries = {
	field: v.pipe(
		textField('Field', { min: 1, max: 20 }),
		v.picklist(FIELDS, 'Field must be review, allowlist or distribution.')
	),
	to: textField('New state', { min: 1, max: 20 }),
	reason: textField('Reason', { max: 500, multiline: true }),
	txHash: v.pipe(
		textField('Transaction hash', { max: 66 }),
		v.check((s) => s === '' || TX_HASH.test(s), 'Transaction hash must be 0x followed by 64 hexadecimal characters.'),
		v.transform((s) => s.toLowerCase())
	),
	/** Optional: the state the admin saw, so a change made meanwhile answers 409 instead of going through. */
	from: textField('Current state', { max: 20 })
};

const transitionSchema = v.object({ applicationId: applicationIdField('Application id'), ...moveEntries });

export type TransitionInput = v.InferOutput<typeof transitionSchema>;
export type MoveInput = Omit<TransitionInput, 'applicationId'>;

/**
 * Validates `schema` (the move's entries and whatever ids it carries) and then what the transitions
 * table needs on top: one set of rules for a single move and a bulk one.
 */
export function parseMove<S extends v.GenericSchema<unknown, MoveInput>>(
	schema: S,
	input: unknown
): Outcome<v.InferOutput<S>> {
	const parsed = validate(schema, input);
	if (!parsed.ok) return parsed;
	const errors = checkTransitionInput(parsed.value);
	if (Object.keys(errors).length) return { ok: false, status: 400, message: 'Some fields need attention.', errors };
	return parsed;
}

/** The checks of transitionApplication without touching anything: for a confirm step before a final move. */
export const parseTransition = (input: unknown): Outcome<TransitionInput> => parseMove(transitionSchema, input);

/** Field-by-field checks the table's needs add to the shape: a state of the field, reason, tx hash. */
function checkTransitionInput(input: MoveInput): FieldErrors {
	const errors: FieldErrors = {};
	const { field, to } = input;
	if (!isState(field, to)) {
		errors.to = `New state must be one of: ${STATES[field].join(', ')}.`;
		return errors;
	}
	if (input.from && !isState(field, input.from))
		errors.from = `Current state must be one of: ${STATES[field].join(', ')}.`;
	const needs = needsOf(field, to);
	if (needs.reason && !input.reason)
		errors.reason = `A reason is needed to move ${LABELS[field].toLowerCase()} to ${stateLabel(to)}.`;
	if (field === 'review' && input.txHash) errors.txHash = 'A review decision takes no transaction hash.';
	else if (needs.txHash && !input.txHash)
		errors.txHash = `The transaction hash of the on-chain step is needed to record ${stateLabel(to)}.`;
	return errors;
}
