import * as v from 'valibot';
import { FIELDS, STATES, TX_HASH, isState } from '$lib/applications/transitions';
import { TX_HASH_SHAPE, moveInputProblems } from '$lib/applications/move-inputs';
import { LENGTHS, UUID_ANY_CASE } from '$lib/platform/limits';
import { textField, validate } from '../platform/forms';
import { invalid, type FieldErrors, type Outcome } from '../platform/outcome';

/** The fields of `POST /admin?/transition` and the application page's `?/transition` (docs/http.md). */
export const MOVE_FIELDS = ['applicationId', 'field', 'to', 'reason', 'txHash', 'from'] as const;

/** An application id as a form sends it: a UUID, any case, stored lowercase. */
export const applicationIdField = (label: string) =>
	v.pipe(
		textField(label, { min: 1, max: 36 }),
		v.check((s) => UUID_ANY_CASE.test(s), `${label} must be a UUID.`),
		v.transform((s) => s.toLowerCase())
	);

/** The move itself (field, to, reason, tx hash, from): one application's or a bulk's. */
export const moveEntries = {
	field: v.pipe(
		textField('Field', { min: 1, max: 20 }),
		v.picklist(FIELDS, 'Field must be review, allowlist or distribution.')
	),
	to: textField('New state', { min: 1, max: 20 }),
	reason: textField('Reason', { ...LENGTHS.reason, multiline: true }),
	txHash: v.pipe(
		textField('Transaction hash', LENGTHS.txHash),
		v.check((s) => s === '' || TX_HASH.test(s), TX_HASH_SHAPE),
		v.transform((s) => s.toLowerCase())
	),
	/** Optional: the state the admin saw, so a change made meanwhile answers 409 instead of going through. */
	from: textField('Current state', { max: 20 })
};

const singleMoveSchema = v.object({ applicationId: applicationIdField('Application id'), ...moveEntries });

export type SingleMoveInput = v.InferOutput<typeof singleMoveSchema>;
export type MoveInput = Omit<SingleMoveInput, 'applicationId'>;

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
	const errors = checkMoveInput(parsed.value);
	if (Object.keys(errors).length) return invalid(errors);
	return parsed;
}

/** The checks of transitionApplication without touching anything: for a confirm step before a final move. */
export const parseSingleMove = (input: unknown): Outcome<SingleMoveInput> => parseMove(singleMoveSchema, input);

/** Field-by-field checks the table's needs add to the shape: a state of the field, reason, tx hash. */
function checkMoveInput(input: MoveInput): FieldErrors {
	const errors: FieldErrors = {};
	const { field, to } = input;
	if (!isState(field, to)) {
		errors.to = `New state must be one of: ${STATES[field].join(', ')}.`;
		return errors;
	}
	if (input.from && !isState(field, input.from))
		errors.from = `Current state must be one of: ${STATES[field].join(', ')}.`;
	// The same messages the browser shows before a confirm dialog opens ($lib/applications/move-inputs).
	return { ...errors, ...moveInputProblems(field, to, input) };
}
