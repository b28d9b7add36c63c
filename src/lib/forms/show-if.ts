import * as v from 'valibot';
import { show_if_later } from '$lib/paraglide/messages/show_if_later.js';
import { show_if_not_option } from '$lib/paraglide/messages/show_if_not_option.js';
import { show_if_number } from '$lib/paraglide/messages/show_if_number.js';
import { show_if_self } from '$lib/paraglide/messages/show_if_self.js';
import { show_if_shape } from '$lib/paraglide/messages/show_if_shape.js';
import { show_if_text } from '$lib/paraglide/messages/show_if_text.js';
import { show_if_unknown_key } from '$lib/paraglide/messages/show_if_unknown_key.js';
import { show_if_unsupported } from '$lib/paraglide/messages/show_if_unsupported.js';
import { show_if_value } from '$lib/paraglide/messages/show_if_value.js';
import { show_if_yes_no } from '$lib/paraglide/messages/show_if_yes_no.js';
import type { Answer, Question } from './questions';

/**
 * Conditional questions (docs/application-form.md "Show only if"): a question may carry
 * `showIf: { key, equals }`, shown only while the earlier question `key` is answered `equals` (a multiple
 * choice: among its picks). A hidden question is not required and its answer is dropped; a question whose
 * target is hidden is hidden too, so chains work. Pure: the server's checks and the page's live show/hide
 * run the same code. Imports of `./questions` are types only, so questions.ts may use this module.
 */

/** The condition: the value is typed as the target's answer is (text, an option, a number, true/false for yes/no). */
export interface ShowIf {
	key: string;
	equals: string | number | boolean;
}

/** Not in the contract: bounds the value to compare with (the longest answer a text field holds is a link's). */
const MAX_EQUALS = 2000;

const value = () => show_if_value({ max: MAX_EQUALS });

/** The shape alone; what it must name and match is checked against the whole form (showIfProblems). */
export const showIfSchema = v.strictObject(
	{
		key: v.string(() => show_if_shape()),
		equals: v.union(
			[
				v.pipe(
					v.string(),
					v.trim(),
					v.minLength(1, value),
					v.maxLength(MAX_EQUALS, value),
					// eslint-disable-next-line no-control-regex
					v.regex(/^[^\u0000-\u001f\u007f-\u009f\p{Cs}]*$/u, value)
				),
				v.pipe(v.number(), v.finite(value)),
				v.boolean()
			],
			value
		)
	},
	() => show_if_shape()
);

/** Whether `answer` (as stored) meets the condition's value: equal, or for several picks, among them. */
export function meets(answer: Answer | undefined, equals: ShowIf['equals']): boolean {
	if (answer === undefined) return false;
	return Array.isArray(answer) ? answer.includes(equals as string) : answer === equals;
}

/**
 * The keys of the questions shown, in one pass in form order: a question without `showIf` is shown; one
 * with it only if its target is shown and `answerOf(target)` meets the value. `answerOf` gives a
 * question's answer as it would be stored (undefined: none, or not a valid one).
 */
export function shownKeys<Q extends Pick<Question, 'key' | 'showIf'>>(
	questions: readonly Q[],
	answerOf: (q: Q) => Answer | undefined
): Set<string> {
	const shown = new Set<string>();
	const byKey = new Map<string, Q>();
	for (const q of questions) {
		const cond = q.showIf;
		const target = cond ? byKey.get(cond.key) : undefined;
		if (!cond || (target && shown.has(target.key) && meets(answerOf(target), cond.equals))) shown.add(q.key);
		if (!byKey.has(q.key)) byKey.set(q.key, q);
	}
	return shown;
}

/**
 * What is wrong with the form's conditions, by question index (one message each, in the request's
 * locale): a key that is not an earlier question's (missing, itself, later), or a value the target's
 * answer can never be (not one of its options, not a number, not yes/no).
 */
export function showIfProblems(
	questions: readonly Pick<Question, 'key' | 'label' | 'type' | 'options' | 'showIf'>[]
): { index: number; part: 'key' | 'equals'; message: string }[] {
	const problems: { index: number; part: 'key' | 'equals'; message: string }[] = [];
	questions.forEach((q, index) => {
		const cond = q.showIf;
		if (!cond) return;
		const at = questions.findIndex((t) => t.key === cond.key);
		const target = questions[at];
		const say = (message: string, part: 'key' | 'equals' = 'equals') => problems.push({ index, part, message });
		if (cond.key === q.key) return say(show_if_self(), 'key');
		if (!target) return say(show_if_unknown_key({ key: cond.key }), 'key');
		if (at > index) return say(show_if_later({ key: cond.key }), 'key');
		const label = target.label;
		switch (target.type) {
			case 'single_choice':
			case 'multiple_choice':
				if (typeof cond.equals !== 'string' || !target.options?.includes(cond.equals))
					say(show_if_not_option({ label }));
				return;
			case 'yes_no':
				if (typeof cond.equals !== 'boolean') say(show_if_yes_no({ label }));
				return;
			case 'number':
				if (typeof cond.equals !== 'number') say(show_if_number({ label }));
				return;
			case 'short_text':
			case 'long_text':
			case 'url':
				if (typeof cond.equals !== 'string') say(show_if_text({ label }));
				return;
			default:
				say(show_if_unsupported({ label }));
		}
	});
	return problems;
}

const DECIMAL = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/**
 * The editor's two fields (`showIfKey`, `showIfEquals`, text as typed) as the schema reads them, typed
 * by the target's type in the draft (`targetType`): yes/no `true`/`false`, a number a number; else the
 * text. No key: no condition. A value that cannot be typed stays text, so the check names it.
 */
export function showIfCandidate(
	key: string,
	equals: string,
	targetType: string | undefined
): { key: string; equals: unknown } | undefined {
	const k = key.trim();
	if (!k) return undefined;
	const s = equals.trim();
	if (targetType === 'yes_no' && (s === 'true' || s === 'false')) return { key: k, equals: s === 'true' };
	if (targetType === 'number' && DECIMAL.test(s)) return { key: k, equals: Number(s) };
	return { key: k, equals: s };
}

/** The editor's field text of a stored value (true/false for yes/no, a number as written). */
export const equalsText = (equals: ShowIf['equals'] | undefined): string =>
	equals === undefined ? '' : String(equals);
