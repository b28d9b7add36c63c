import * as v from 'valibot';
import { hasInvisible, invisibleMessage } from '$lib/forms/invisible-text';
import { m } from '$lib/paraglide/messages';

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
 * control characters refused (newlines and tabs allowed only in multi-line fields); invisible and
 * text-direction characters refused ($lib/forms/invisible-text); length checked in characters.
 * The messages are written when a check fails, in the request's locale: `label` may be a message
 * (`m.field_motivation`), read then too, since the schema itself is built once.
 */
export function textField(label: string | (() => string), options: { min?: number; max: number; multiline?: boolean }) {
	const control = options.multiline ? CONTROL_EXCEPT_NEWLINE_TAB : CONTROL;
	const min = options.min ?? 0;
	const name = () => ({ label: typeof label === 'string' ? label : label() });
	return v.optional(
		v.pipe(
			v.string(() => m.field_not_text(name())),
			v.transform((s) => s.replace(/\r\n?/g, '\n').trim()),
			v.check(
				(s) => !LONE_SURROGATE.test(s),
				() => m.field_invalid_chars(name())
			),
			v.check(
				(s) => !control.test(s),
				() => (options.multiline ? m.field_control_chars_multiline(name()) : m.field_control_chars(name()))
			),
			v.check(
				(s) => !hasInvisible(s),
				() => invisibleMessage(name().label)
			),
			v.check(
				(s) => charCount(s) >= min,
				() => m.field_required(name())
			),
			v.check(
				(s) => charCount(s) <= options.max,
				() => m.field_too_long({ ...name(), max: options.max })
			)
		),
		''
	);
}
