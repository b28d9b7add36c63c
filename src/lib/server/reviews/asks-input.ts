import * as v from 'valibot';
import { ASK_PREFIX, BUILT_IN_FIELDS, askField, isAskKey, type Asks } from '$lib/applications/asks';
import { LENGTHS } from '$lib/platform/limits';
import type { Question } from '$lib/forms/questions';
import { textField, type FormFields } from '../platform/forms';
import type { FieldErrors } from '../platform/outcome';
import { m } from '$lib/paraglide/messages';

/** More `ask.*` fields than any form has answers: refused before each is read (50 questions + 3 built-in). */
const MOST_ASKS = 53;

/**
 * The `ask.<key>` fields of a post, as sent (one value or several), by key: FormFields collects them in
 * the one pass that read the form (a body of many fields costs one walk, never one per name).
 */
export function asksInput(form: FormFields): Record<string, unknown> {
	const sent = Object.create(null) as Record<string, unknown>;
	for (const [name, value] of Object.entries(form.prefixed(ASK_PREFIX))) sent[name.slice(ASK_PREFIX.length)] = value;
	return sent;
}

const comment = textField('A comment on an answer', { ...LENGTHS.ask, min: 0, multiline: true });

/**
 * The comments as sent, by key: each 1–500 characters once trimmed (a blank one is no comment, as an
 * empty reason is none), text only, on a key an answer may have. Null when there are none. Whether the
 * application's form has each key is checked against its rows (unknownAsks).
 */
export function parseAsks(sent: Readonly<Record<string, unknown>>): { asks: Asks | null; errors: FieldErrors } {
	const errors: FieldErrors = {};
	const keys = Object.keys(sent);
	if (keys.length > MOST_ASKS) return { asks: null, errors: { ask: m.admin_asks_at_most({ count: MOST_ASKS }) } };
	const asks: Asks = {};
	for (const key of keys) {
		const name = askField(key);
		if (!isAskKey(key)) {
			errors[name] = m.admin_ask_unknown_key();
			continue;
		}
		const checked = v.safeParse(comment, sent[key], { abortPipeEarly: true });
		if (!checked.success) errors[name] = checked.issues[0].message;
		else if (checked.output !== '') asks[key] = checked.output;
	}
	return { asks: Object.keys(asks).length ? asks : null, errors };
}

/** The keys of `asks` that the application's form version does not have (its questions and the built-in fields). */
export function unknownAsks(asks: Asks, questions: readonly Question[]): string[] {
	const known = new Set([...Object.keys(BUILT_IN_FIELDS), ...questions.map((q) => q.key)]);
	return Object.keys(asks).filter((key) => !known.has(key));
}
