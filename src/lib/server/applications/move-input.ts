import * as v from 'valibot';
import { FIELDS, STATES, TX_HASH, isState, isTerminal, type Field } from '$lib/applications/transitions';
import { moveInputProblems, txHashShape } from '$lib/applications/move-inputs';
import { LENGTHS, UUID_ANY_CASE } from '$lib/platform/limits';
import { textField, validate, type FormFields } from '../platform/forms';
import { invalid, type FieldErrors, type Outcome } from '../platform/outcome';
import type { Asks } from '$lib/applications/asks';
import { parseAsks } from '../reviews/asks-input';
import { m } from '$lib/paraglide/messages';

/** The fields of `POST /admin?/transition` and the application page's `?/transition` (docs/http.md). */
export const MOVE_FIELDS = ['applicationId', 'field', 'to', 'reason', 'txHash', 'from', 'reapplyAfter'] as const;

/** An application id as a form sends it: a UUID, any case, stored lowercase. */
export const applicationIdField = (label: string) =>
	v.pipe(
		textField(label, { min: 1, max: 36 }),
		v.check(
			(s) => UUID_ANY_CASE.test(s),
			() => m.admin_must_be_uuid({ label })
		),
		v.transform((s) => s.toLowerCase())
	);

/**
 * The move itself (field, to, reason, tx hash, from): one application's or a bulk's. The fields an admin
 * types in are named as the page labels them, in the request's language (an Arabic page's refusal says
 * «السبب», not «Reason»); the hidden ones keep an English name, for a hand-made request.
 */
export const moveEntries = {
	field: v.pipe(
		textField('Field', { min: 1, max: 20 }),
		v.picklist(FIELDS, () => m.admin_field_must_be())
	),
	to: textField('New state', { min: 1, max: 20 }),
	reason: textField(m.admin_reason, { ...LENGTHS.reason, multiline: true }),
	txHash: v.pipe(
		textField(m.admin_tx_hash, LENGTHS.txHash),
		v.check((s) => s === '' || TX_HASH.test(s), txHashShape),
		v.transform((s) => s.toLowerCase())
	),
	/** Optional: the state the admin saw, so a change made meanwhile answers 409 instead of going through. */
	from: textField('Current state', { max: 20 }),
	/** Optional with a rejection: `YYYY-MM-DD`, the day from which the applicant may apply again ('' none). */
	reapplyAfter: textField(m.application_reapply_label, { max: 10 })
};

const singleMoveSchema = v.object({ applicationId: applicationIdField('Application id'), ...moveEntries });

/** The comments on answers of a needs_info move, by key (docs/review-guide.md); null when none. */
type WithAsks<T> = T & { asks: Asks | null };

export type SingleMoveInput = WithAsks<v.InferOutput<typeof singleMoveSchema>>;
export type MoveInput = Omit<SingleMoveInput, 'applicationId'>;

/**
 * Validates `schema` (the move's entries and whatever ids it carries), the comments on answers
 * (`input.asks`: the `ask.<key>` fields as sent, by key) and then what the transitions table needs on
 * top: one set of rules for a single move and a bulk one.
 */
export function parseMove<S extends v.GenericSchema<unknown, Omit<MoveInput, 'asks'>>>(
	schema: S,
	input: unknown
): Outcome<WithAsks<v.InferOutput<S>>> {
	const parsed = validate(schema, input);
	const sent = (input as { asks?: unknown } | null)?.asks;
	const asks = parseAsks(sent && typeof sent === 'object' ? (sent as Record<string, unknown>) : {});
	if (!parsed.ok) return invalid({ ...parsed.errors, ...asks.errors });
	const value = { ...parsed.value, asks: asks.asks };
	const errors = { ...asks.errors, ...checkMoveInput(value) };
	if (Object.keys(errors).length) return invalid(errors);
	return { ok: true, value };
}

/** The checks of transitionApplication without touching anything: for a confirm step before a final move. */
export const parseSingleMove = (input: unknown): Outcome<SingleMoveInput> => parseMove(singleMoveSchema, input);

/**
 * Whether a move waits for the admin's confirmation: a final move (approved, rejected, added, sent)
 * posted without `confirm=yes` is not applied, and the page answers with the confirm step instead
 * (docs/pages-and-forms.md "Confirming a final move"). Both admin move actions, single and bulk, ask this.
 */
export const awaitsConfirmation = (move: { field: Field; to: string }, form: FormFields): boolean =>
	isTerminal(move.field, move.to) && form.get('confirm') !== 'yes';

/** Field-by-field checks the table's needs add to the shape: a state of the field, reason, tx hash, asks, date. */
function checkMoveInput(input: MoveInput): FieldErrors {
	const errors: FieldErrors = {};
	const { field, to } = input;
	if (!isState(field, to)) {
		errors.to = m.admin_to_must_be({ states: STATES[field].join(', ') });
		return errors;
	}
	if (input.from && !isState(field, input.from))
		errors.from = m.admin_from_must_be({ states: STATES[field].join(', ') });
	// The same messages the browser shows before a confirm dialog opens ($lib/applications/move-inputs).
	const asks = Object.keys(input.asks ?? {});
	const { ask, ...problems } = moveInputProblems(field, to, { ...input, asks: asks.length });
	if (ask) errors[`ask.${asks[0]}`] = ask;
	return { ...errors, ...problems };
}
