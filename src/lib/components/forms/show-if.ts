import { shownQuestionKeys, type LocalizedQuestion, type Question } from '$lib/forms/questions';
import type { DraftQuestion } from '$lib/forms/question-editor';
import { getLocale } from '$lib/paraglide/runtime';
import { form_answer_no } from '$lib/paraglide/messages/form_answer_no.js';
import { form_answer_yes } from '$lib/paraglide/messages/form_answer_yes.js';
import { form_show_if_note } from '$lib/paraglide/messages/form_show_if_note.js';
import { form_show_if_note_includes } from '$lib/paraglide/messages/form_show_if_note_includes.js';
import { editor_show_if_includes } from '$lib/paraglide/messages/editor_show_if_includes.js';
import { editor_show_if_value } from '$lib/paraglide/messages/editor_show_if_value.js';

/**
 * Conditional questions on a page ($lib/forms/show-if.ts): the note a question shows without JavaScript, and
 * the live show/hide of QuestionFields inside a form.
 */

/** "Answer only if …": the condition in the page's words (the target's label and the value as its options read it). */
export function conditionNote(q: LocalizedQuestion, all: readonly LocalizedQuestion[]): string {
	const cond = q.showIf;
	const target = cond && all.find((t) => t.key === cond.key);
	if (!cond || !target) return '';
	const { equals } = cond;
	const option = typeof equals === 'string' ? (target.options ?? []).indexOf(equals) : -1;
	const value =
		typeof equals === 'boolean'
			? equals
				? form_answer_yes()
				: form_answer_no()
			: typeof equals === 'number'
				? new Intl.NumberFormat(getLocale(), { maximumFractionDigits: 20 }).format(equals)
				: option >= 0
					? (target.optionTexts[option] ?? equals)
					: equals;
	return target.type === 'multiple_choice'
		? form_show_if_note_includes({ label: target.label, value })
		: form_show_if_note({ label: target.label, value });
}

/**
 * The `answers.<key>` fields of `form` as a post would send them, hidden (disabled) ones included, so a
 * question shown again brings back what it held and the questions that depend on it.
 */
export function answersIn(form: HTMLFormElement): Record<string, string | string[]> {
	const out: Record<string, string | string[]> = {};
	for (const el of form.elements) {
		if (!(el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement))
			continue;
		if (!el.name.startsWith('answers.')) continue;
		if (el instanceof HTMLInputElement && (el.type === 'checkbox' || el.type === 'radio') && !el.checked) continue;
		const before = Object.hasOwn(out, el.name) ? out[el.name] : undefined;
		out[el.name] = before === undefined ? el.value : [...(Array.isArray(before) ? before : [before]), el.value];
	}
	return out;
}

/**
 * An attachment for one of QuestionFields' conditional fieldsets: follows its form's answers and tells
 * `show` the keys shown, now and after each change; nothing outside a form (the editor's preview).
 */
export function watchAnswers(
	node: HTMLFieldSetElement,
	questions: readonly Question[],
	show: (keys: Set<string>) => void
): (() => void) | undefined {
	const form = node.form;
	if (!form) return undefined;
	const read = () => show(shownQuestionKeys(questions, answersIn(form)));
	read();
	form.addEventListener('input', read);
	form.addEventListener('change', read);
	return () => {
		form.removeEventListener('input', read);
		form.removeEventListener('change', read);
	};
}

/**
 * The builder's name for a condition's value (ShowIfEditor.svelte's label, and the error summary's name for
 * `questions.<i>.showIfEquals`): "Answer includes" when the question it depends on is a multiple choice,
 * "Is answered" otherwise. `earlier` are the questions before it, as the editor holds them.
 */
export function showIfValueLabel(
	question: Pick<DraftQuestion, 'showIfKey'>,
	earlier: readonly DraftQuestion[]
): string {
	const key = question.showIfKey.trim();
	const target = key ? earlier.find((t) => t.key.trim() === key) : undefined;
	return target?.type === 'multiple_choice' ? editor_show_if_includes() : editor_show_if_value();
}
