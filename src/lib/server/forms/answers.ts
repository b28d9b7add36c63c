import { KEY, checkAnswers, questionInLocale, type Answers } from '$lib/forms/questions';
import { getLocale } from '$lib/paraglide/runtime';
import type { Database } from '../db/client';
import type { FormFields, FormValue } from '../platform/forms';
import { currentForm, type CurrentForm } from './versions';

const PREFIX = 'answers.';

/**
 * The `answers.<key>` fields of a post, as sent (one value, several, or a File), in an object without a
 * prototype so that no field name reaches Object's own properties; all other fields are left out.
 * Read in the form's one pass (FormFields), never a walk of the post per name.
 */
export const answersInput = (form: FormFields<FormValue>): Record<string, unknown> => form.prefixed(PREFIX);

/** What the applicant typed, by question key, to put back into the form after a refusal (text only). */
export function typedAnswers(sent: Readonly<Record<string, unknown>>): Record<string, string | string[]> {
	const typed: Record<string, string | string[]> = {};
	for (const [name, value] of Object.entries(sent)) {
		const key = name.slice(PREFIX.length);
		if (!KEY.test(key)) continue; // never `__proto__` or anything no question can have
		if (typeof value === 'string') typed[key] = value;
		else if (Array.isArray(value)) typed[key] = value.filter((v): v is string => typeof v === 'string');
	}
	return typed;
}

/** The sent answers checked against the current form (`read`, when the caller has it already): its id and the answers to store, or a message per field. */
export async function answersToCurrentForm(
	db: Database,
	sent: Readonly<Record<string, unknown>>,
	read?: CurrentForm
): Promise<{ ok: true; formId: number | null; answers: Answers } | { ok: false; errors: Record<string, string> }> {
	const form = read ?? (await currentForm(db));
	// A refusal names the question as the page asked it (its translation); the options checked and stored stay the originals.
	const checked = checkAnswers(
		form.questions.map((q) => questionInLocale(q, getLocale())),
		sent
	);
	return checked.ok ? { ok: true, formId: form.id, answers: checked.answers } : checked;
}
