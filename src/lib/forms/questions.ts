import * as v from 'valibot';
import { hasInvisible, invisibleMessage } from './invisible-text';
import { m } from '$lib/paraglide/messages';
import { getLocale } from '$lib/paraglide/runtime';

/**
 * An application form's own questions (DECISIONS "Application questions"): the question schema the
 * editor saves and the answer checks, pure, so the server and the browser apply the same rules.
 */

export const QUESTION_TYPES = [
	'short_text',
	'long_text',
	'single_choice',
	'multiple_choice',
	'url',
	'number',
	'yes_no'
] as const;
export type QuestionType = (typeof QUESTION_TYPES)[number];

export const TYPE_LABELS: Record<QuestionType, string> = {
	short_text: 'Short answer',
	long_text: 'Paragraph',
	single_choice: 'Single choice',
	multiple_choice: 'Multiple choice',
	url: 'Link',
	number: 'Number',
	yes_no: 'Yes / no'
};

export const KEY = /^[a-z][a-z0-9_]{0,39}$/;
export const LIMITS = {
	label: 200,
	help: 500,
	option: 100,
	minOptions: 2,
	maxOptions: 20,
	/** Not in the contract: enough for any community, and it bounds a form's size. */
	maxQuestions: 50,
	shortText: 200,
	longText: 5000,
	/** Not in the contract: a link longer than this is not one a reviewer will follow. */
	url: 2000
} as const;

export const isChoice = (t: QuestionType) => t === 'single_choice' || t === 'multiple_choice';

export interface Question {
	key: string;
	label: string;
	help?: string;
	type: QuestionType;
	required: boolean;
	options?: string[];
	min?: number;
	max?: number;
}

/** A stored answer: text, url and single choice a string; multiple choice strings; number; yes/no. */
export type Answer = string | string[] | number | boolean;
export type Answers = Record<string, Answer>;

// C0 and C1 controls (newlines and tabs allowed only in paragraphs) and lone surrogates: no database text holds them.
/* eslint-disable no-control-regex */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const CONTROL_EXCEPT_NEWLINE_TAB = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
/* eslint-enable no-control-regex */
const LONE_SURROGATE = /\p{Cs}/u;
const chars = (s: string) => [...s].length;
const clean = (s: string) => s.replace(/\r\n?/g, '\n').trim();

/** Why a piece of text is refused, or null (in the request's locale). */
function textProblem(label: string, s: string, max: number, multiline = false): string | null {
	if (LONE_SURROGATE.test(s)) return m.field_invalid_chars({ label });
	if ((multiline ? CONTROL_EXCEPT_NEWLINE_TAB : CONTROL).test(s))
		return multiline ? m.field_control_chars_multiline({ label }) : m.field_control_chars({ label });
	if (hasInvisible(s)) return invisibleMessage(label);
	if (chars(s) > max) return m.field_too_long({ label, max });
	return null;
}

/** A bound as a refusal names it: in the request's locale, without grouping ("1000", "0,5"). */
const bound = (n: number) =>
	new Intl.NumberFormat(getLocale(), { useGrouping: false, maximumFractionDigits: 20 }).format(n);

const text = (label: string, min: number, max: number) =>
	v.pipe(
		v.string(`${label} must be text.`),
		v.transform(clean),
		v.check((s) => chars(s) >= min, `${label} is required.`),
		v.rawCheck(({ dataset, addIssue }) => {
			const problem = dataset.typed ? textProblem(label, dataset.value, max) : null;
			if (problem) addIssue({ message: problem });
		})
	);

/** One question as the editor saves it; the rules that join fields (options, bounds) are below. */
export const questionSchema = v.pipe(
	v.object({
		key: v.pipe(
			v.string('Key must be text.'),
			v.trim(),
			v.regex(KEY, 'Key must start with a-z and have only a-z, 0-9 and _, up to 40 characters.')
		),
		label: text('Label', 1, LIMITS.label),
		help: v.optional(text('Help', 0, LIMITS.help)),
		type: v.picklist(QUESTION_TYPES, 'Type must be one of the seven question types.'),
		required: v.boolean(),
		options: v.optional(
			v.pipe(
				v.array(text('Each option', 1, LIMITS.option)),
				v.check((o) => new Set(o).size === o.length, 'Options must differ from each other.')
			)
		),
		min: v.optional(v.pipe(v.number('Minimum must be a number.'), v.finite('Minimum must be a number.'))),
		max: v.optional(v.pipe(v.number('Maximum must be a number.'), v.finite('Maximum must be a number.')))
	}),
	v.forward(
		v.check(
			(q) =>
				!isChoice(q.type) ||
				(!!q.options && q.options.length >= LIMITS.minOptions && q.options.length <= LIMITS.maxOptions),
			`A choice needs ${LIMITS.minOptions} to ${LIMITS.maxOptions} options.`
		),
		['options']
	),
	v.forward(
		v.check((q) => q.min === undefined || q.max === undefined || q.min <= q.max, 'Minimum must not be above maximum.'),
		['min']
	),
	// What does not belong to the type is dropped, so a stored question is always in its type's shape.
	v.transform((q): Question => {
		const out: Question = { key: q.key, label: q.label, type: q.type, required: q.required };
		if (q.help) out.help = q.help;
		if (isChoice(q.type)) out.options = q.options;
		if (q.type === 'number') {
			if (q.min !== undefined) out.min = q.min;
			if (q.max !== undefined) out.max = q.max;
		}
		return out;
	})
);

export const questionsSchema = v.pipe(
	v.array(questionSchema),
	v.maxLength(LIMITS.maxQuestions, `A form has at most ${LIMITS.maxQuestions} questions.`)
);

/** Keys used twice in one form, by index of the later use. */
export function duplicateKeys(questions: readonly { key: string }[]): number[] {
	const seen = new Set<string>();
	const dup: number[] = [];
	questions.forEach((q, i) => (seen.has(q.key) ? dup.push(i) : seen.add(q.key)));
	return dup;
}

/** The form field of a question's answer. */
export const answerField = (key: string) => `answers.${key}`;

const DECIMAL = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/**
 * Checks one answer as sent (undefined, a string or several strings) against its question: the
 * stored value, `undefined` for an unanswered optional question, or the message for the field.
 */
export function checkAnswer(q: Question, sent: unknown): { value?: Answer } | { error: string } {
	const values = (Array.isArray(sent) ? (sent as unknown[]) : sent === undefined ? [] : [sent]).map((s) =>
		typeof s === 'string' ? clean(s) : s
	);
	const label = q.label;
	if (values.some((s) => typeof s !== 'string')) return { error: m.form_answer_text_only({ label }) };
	const strings = (values as string[]).filter((s) => s !== '');
	if (q.type === 'yes_no') {
		if (strings.some((s) => s !== 'on')) return { error: m.form_answer_tick({ label }) };
		if (q.required && !strings.length) return { error: m.field_required({ label }) };
		return { value: strings.length > 0 };
	}
	if (!strings.length) return q.required ? { error: m.field_required({ label }) } : {};
	if (q.type === 'multiple_choice') {
		const picked = [...new Set(strings)];
		if (picked.some((s) => !q.options?.includes(s))) return { error: m.form_answer_choose_among({ label }) };
		return { value: picked };
	}
	if (strings.length > 1) return { error: m.form_answer_one_answer({ label }) };
	const s = strings[0]!;
	switch (q.type) {
		case 'short_text':
		case 'long_text': {
			const max = q.type === 'short_text' ? LIMITS.shortText : LIMITS.longText;
			const problem = textProblem(q.label, s, max, q.type === 'long_text');
			return problem ? { error: problem } : { value: s };
		}
		case 'single_choice':
			return q.options?.includes(s) ? { value: s } : { error: m.form_answer_choose_one({ label }) };
		case 'url': {
			const problem = textProblem(q.label, s, LIMITS.url);
			if (problem) return { error: problem };
			return isHttpUrl(s) ? { value: s } : { error: m.form_answer_link({ label }) };
		}
		case 'number': {
			const n = DECIMAL.test(s) ? Number(s) : NaN;
			if (!Number.isFinite(n)) return { error: m.form_answer_number({ label }) };
			if (q.min !== undefined && n < q.min) return { error: m.form_answer_min({ label, min: bound(q.min) }) };
			if (q.max !== undefined && n > q.max) return { error: m.form_answer_max({ label, max: bound(q.max) }) };
			return { value: n };
		}
	}
	return { error: m.form_answer_unanswerable({ label }) };
}

function isHttpUrl(s: string): boolean {
	if (!/^https?:\/\//i.test(s)) return false;
	try {
		const url = new URL(s);
		return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
	} catch {
		return false;
	}
}

/**
 * Every answer of a form, from the fields as sent (`answers.<key>`; fields of other keys ignored):
 * the answers to store, or a message per field.
 */
export function checkAnswers(
	questions: readonly Question[],
	sent: Readonly<Record<string, unknown>>
): { ok: true; answers: Answers } | { ok: false; errors: Record<string, string> } {
	const answers: Answers = {};
	const errors: Record<string, string> = {};
	for (const q of questions) {
		const field = answerField(q.key);
		const result = checkAnswer(q, Object.hasOwn(sent, field) ? sent[field] : undefined);
		if ('error' in result) errors[field] = result.error;
		else if (result.value !== undefined) answers[q.key] = result.value;
	}
	return Object.keys(errors).length ? { ok: false, errors } : { ok: true, answers };
}

/**
 * An answer as people read it: multiple choices joined with `; `, yes/no as words (English unless a
 * page gives its own: the CSV export keeps English, it is data).
 */
export function answerText(
	answer: Answer | undefined,
	words: { yes: string; no: string } = { yes: 'Yes', no: 'No' }
): string {
	if (answer === undefined) return '';
	if (Array.isArray(answer)) return answer.join('; ');
	if (typeof answer === 'boolean') return answer ? words.yes : words.no;
	return String(answer);
}

/** The answer to `key`, only if one was stored (a key such as `constructor` must not read Object's own). */
export const answerOf = (answers: Answers, key: string): Answer | undefined =>
	Object.hasOwn(answers, key) ? answers[key] : undefined;
