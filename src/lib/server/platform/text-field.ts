import * as v from 'valibot';
import { hasInvisible, invisibleMessage } from '$lib/forms/invisible-text';

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
			v.check((s) => !hasInvisible(s), invisibleMessage(label)),
			v.check((s) => charCount(s) >= min, `${label} is required.`),
			v.check((s) => charCount(s) <= options.max, `${label} must be at most ${options.max} characters.`)
		),
		''
	);
}
