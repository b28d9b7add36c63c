import { error, fail, isHttpError, type ActionFailure } from '@sveltejs/kit';
import * as v from 'valibot';
import { invalid, type Failure, type FieldErrors } from './outcome';

/** A refused action: the page is rendered with the refusal's status; a 429 also says Retry-After. */
export function refuse<T extends Record<string, unknown>>(
	setHeaders: (headers: Record<string, string>) => void,
	failure: Failure,
	data: T
): ActionFailure<Failure & T> {
	if (failure.status === 429) setHeaders({ 'retry-after': String(failure.retryAfterSeconds) });
	return fail(failure.status, { ...failure, ...data });
}

/**
 * The body of a form action. One that is not a readable form (malformed or truncated multipart,
 * text/plain, bytes) is a 400, never a 500 (docs/pages-and-forms.md "Status codes"); an over-large
 * one keeps its 413.
 */
export async function readForm(request: Request): Promise<FormData> {
	try {
		return await request.formData();
	} catch (err) {
		if (isHttpError(err)) throw err;
		error(400, { code: 'invalid_request', message: 'The form could not be read. Send it again from the page.' });
	}
}

/**
 * The named fields of a form, as sent: a string, a File, several values (an array) or undefined.
 * Validation then refuses anything that is not exactly one piece of text.
 */
export function formInput(form: FormData, names: readonly string[]): Record<string, unknown> {
	const input: Record<string, unknown> = {};
	for (const name of names) {
		const values = form.getAll(name);
		input[name] = values.length === 0 ? undefined : values.length === 1 ? values[0] : values;
	}
	return input;
}

/** The text values a user typed, to put back into the form after a refusal. */
export function typedValues(input: Record<string, unknown>): Record<string, string> {
	const values: Record<string, string> = {};
	for (const [name, value] of Object.entries(input)) if (typeof value === 'string') values[name] = value;
	return values;
}

// C0 and C1 control characters (what these refuse); lone UTF-16 surrogates, which no database text can hold.
/* eslint-disable no-control-regex */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const CONTROL_EXCEPT_NEWLINE_TAB = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
/* eslint-enable no-control-regex */
const LONE_SURROGATE = /\p{Cs}/u;

/** Characters as the database counts them (code points, not UTF-16 units). */
export const charCount = (s: string) => [...s].length;

/**
 * A text field: missing counts as empty; line ends normalised to \n; blanks around trimmed;
 * control characters refused (newlines and tabs allowed only in multi-line fields); length
 * checked in characters.
 */
export function textField(label: string, options: { min?: number; max: number; multiline?: boolean }) {
	const control = options.multiline ? CONTROL_EXCEPT_NEWLINE_TAB : CONTROL;
	const min = options.min ?? 0;
	return v.optional(
		v.pipe(
			v.string(`${label} must be text.`),
			v.transform((s) => s.replace(/\r\n?/g, '\n').trim()),
			v.check((s) => !LONE_SURROGATE.test(s), `${label} contains characters that are not valid text.`),
			v.check(
				(s) => !control.test(s),
				options.multiline
					? `${label} must not contain control characters (line breaks are fine).`
					: `${label} must not contain control characters or line breaks.`
			),
			v.check((s) => charCount(s) >= min, `${label} is required.`),
			v.check((s) => charCount(s) <= options.max, `${label} must be at most ${options.max} characters.`)
		),
		''
	);
}

/** Runs `schema` over `input`: the typed output, or a 400 with the first message for each field. */
export function validate<S extends v.GenericSchema>(
	schema: S,
	input: unknown
): { ok: true; value: v.InferOutput<S> } | Extract<Failure, { status: 400 }> {
	const result = v.safeParse(schema, input, { abortPipeEarly: true });
	if (result.success) return { ok: true, value: result.output };
	const errors: FieldErrors = {};
	for (const issue of result.issues) {
		const key = issue.path?.map((p) => String(p.key)).join('.') ?? '';
		if (key && !(key in errors)) errors[key] = issue.message;
	}
	return invalid(errors);
}
