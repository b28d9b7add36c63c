import * as v from 'valibot';
import { field_control_chars } from '$lib/paraglide/messages/field_control_chars.js';
import { field_control_chars_multiline } from '$lib/paraglide/messages/field_control_chars_multiline.js';
import { field_invalid_chars } from '$lib/paraglide/messages/field_invalid_chars.js';
import { field_required } from '$lib/paraglide/messages/field_required.js';
import { field_too_long } from '$lib/paraglide/messages/field_too_long.js';
import { form_answer_choose_among } from '$lib/paraglide/messages/form_answer_choose_among.js';
import { form_answer_choose_one } from '$lib/paraglide/messages/form_answer_choose_one.js';
import { form_answer_link } from '$lib/paraglide/messages/form_answer_link.js';
import { form_answer_max } from '$lib/paraglide/messages/form_answer_max.js';
import { form_answer_min } from '$lib/paraglide/messages/form_answer_min.js';
import { form_answer_number } from '$lib/paraglide/messages/form_answer_number.js';
import { form_answer_one_answer } from '$lib/paraglide/messages/form_answer_one_answer.js';
import { form_answer_text_only } from '$lib/paraglide/messages/form_answer_text_only.js';
import { form_answer_tick } from '$lib/paraglide/messages/form_answer_tick.js';
import { form_answer_unanswerable } from '$lib/paraglide/messages/form_answer_unanswerable.js';
import { form_file_too_many } from '$lib/paraglide/messages/form_file_too_many.js';
import { form_file_unreadable } from '$lib/paraglide/messages/form_file_unreadable.js';
import { question_field_each_option } from '$lib/paraglide/messages/question_field_each_option.js';
import { question_field_help } from '$lib/paraglide/messages/question_field_help.js';
import { question_field_help_in } from '$lib/paraglide/messages/question_field_help_in.js';
import { question_field_label } from '$lib/paraglide/messages/question_field_label.js';
import { question_field_label_in } from '$lib/paraglide/messages/question_field_label_in.js';
import { question_field_option_in } from '$lib/paraglide/messages/question_field_option_in.js';
import { question_file_accept } from '$lib/paraglide/messages/question_file_accept.js';
import { question_file_count } from '$lib/paraglide/messages/question_file_count.js';
import { question_file_size } from '$lib/paraglide/messages/question_file_size.js';
import { question_is_required } from '$lib/paraglide/messages/question_is_required.js';
import { question_key_pattern } from '$lib/paraglide/messages/question_key_pattern.js';
import { question_key_text } from '$lib/paraglide/messages/question_key_text.js';
import { question_max_number } from '$lib/paraglide/messages/question_max_number.js';
import { question_min_above_max } from '$lib/paraglide/messages/question_min_above_max.js';
import { question_min_number } from '$lib/paraglide/messages/question_min_number.js';
import { question_must_be_text } from '$lib/paraglide/messages/question_must_be_text.js';
import { question_options_count } from '$lib/paraglide/messages/question_options_count.js';
import { question_options_differ } from '$lib/paraglide/messages/question_options_differ.js';
import { question_too_many } from '$lib/paraglide/messages/question_too_many.js';
import { question_translation_option_count } from '$lib/paraglide/messages/question_translation_option_count.js';
import { question_translation_options_differ } from '$lib/paraglide/messages/question_translation_options_differ.js';
import { question_translation_options_list } from '$lib/paraglide/messages/question_translation_options_list.js';
import { question_translation_unknown_locale } from '$lib/paraglide/messages/question_translation_unknown_locale.js';
import { question_translations_object } from '$lib/paraglide/messages/question_translations_object.js';
import { question_type_file } from '$lib/paraglide/messages/question_type_file.js';
import { question_type_long_text } from '$lib/paraglide/messages/question_type_long_text.js';
import { question_type_multiple_choice } from '$lib/paraglide/messages/question_type_multiple_choice.js';
import { question_type_number } from '$lib/paraglide/messages/question_type_number.js';
import { question_type_short_text } from '$lib/paraglide/messages/question_type_short_text.js';
import { question_type_single_choice } from '$lib/paraglide/messages/question_type_single_choice.js';
import { question_type_unknown } from '$lib/paraglide/messages/question_type_unknown.js';
import { question_type_url } from '$lib/paraglide/messages/question_type_url.js';
import { question_type_yes_no } from '$lib/paraglide/messages/question_type_yes_no.js';
import { LOCALE_NAMES, baseLocale, locales, type Locale } from '$lib/i18n/locales';
import { hasInvisible, invisibleMessage } from './invisible-text';
import { getLocale } from '$lib/paraglide/runtime';
import { showIfProblems, showIfSchema, shownKeys, type ShowIf } from './show-if';

/**
 * An application form's own questions (docs/decisions/0027-versioned-application-forms.md): the question schema the
 * editor saves and the answer checks, pure, so the server and the browser apply the same rules.
 */

export const QUESTION_TYPES = [
	'short_text',
	'long_text',
	'single_choice',
	'multiple_choice',
	'url',
	'number',
	'yes_no',
	'file'
] as const;
export type QuestionType = (typeof QUESTION_TYPES)[number];

const TYPE_LABELS: Record<QuestionType, () => string> = {
	short_text: question_type_short_text,
	long_text: question_type_long_text,
	single_choice: question_type_single_choice,
	multiple_choice: question_type_multiple_choice,
	url: question_type_url,
	number: question_type_number,
	yes_no: question_type_yes_no,
	file: question_type_file
};

/** A question type's name in the page's locale ("Short answer"); an unknown type as it is. */
export const typeLabel = (type: string): string =>
	Object.hasOwn(TYPE_LABELS, type) ? TYPE_LABELS[type as QuestionType]() : type;

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

// Files (issue 58; the stored files: src/lib/server/files/README.md). The types a `file` question may accept,
// told from the bytes, never from the name or the declared type.
export const FILE_TYPES = ['application/pdf', 'image/png', 'image/jpeg', 'image/webp', 'text/plain'] as const;
export type FileType = (typeof FILE_TYPES)[number];
export const FILE_LIMITS = {
	maxFiles: 5,
	/** 10 MiB, each file. */
	maxBytes: 10 * 1024 * 1024,
	/** The whole multipart body of /apply: over it, 413. */
	maxBody: 25 * 1024 * 1024
} as const;
/** A file type's short name for people ("PDF", "PNG"). */
export const fileTypeName = (t: string) =>
	({ 'application/pdf': 'PDF', 'image/png': 'PNG', 'image/jpeg': 'JPEG', 'image/webp': 'WebP', 'text/plain': 'TXT' })[
		t
	] ?? t;
/** A size in MiB as people read it ("10 MiB", "2.5 MiB"). */
export const mebibytes = (bytes: number) => `${Math.round((bytes / 1048576) * 100) / 100} MiB`;

/**
 * A stored file's size as a person reads it, in `locale`: bytes, kilobytes or megabytes (1000-based, as
 * the units are named), never "0 MiB" for a small file. Limits stay in MiB (`mebibytes`).
 */
export function fileSize(bytes: number, locale: string): string {
	const [unit, value] =
		bytes < 1000 ? ['byte', bytes] : bytes < 1e6 ? ['kilobyte', bytes / 1e3] : ['megabyte', bytes / 1e6];
	return new Intl.NumberFormat(locale, {
		style: 'unit',
		unit,
		// "293 bytes", not "293 byte"; kB and MB short.
		unitDisplay: unit === 'byte' ? 'long' : 'short',
		maximumFractionDigits: 1
	}).format(value);
}

/** The locales a form's own words may be translated into: every locale but the base (`en`), which the originals are in. */
export const TRANSLATION_LOCALES = locales.filter((l): l is Exclude<Locale, typeof baseLocale> => l !== baseLocale);
export type TranslationLocale = (typeof TRANSLATION_LOCALES)[number];

/** A question's words in one more locale (docs/translations.md): each part optional. */
export interface QuestionTranslation {
	label?: string;
	help?: string;
	/** The options in the same order and number as the originals. */
	options?: string[];
}
export type Translations<T> = Partial<Record<TranslationLocale, T>>;

export interface Question {
	key: string;
	label: string;
	help?: string;
	type: QuestionType;
	required: boolean;
	options?: string[];
	min?: number;
	max?: number;
	/** A `file` question: the types accepted, how many files (1–5), how big each (bytes, ≤ 10 MiB). */
	accept?: FileType[];
	maxFiles?: number;
	maxBytes?: number;
	translations?: Translations<QuestionTranslation>;
	/** Shown only while an earlier question is answered so (show-if.ts). */
	showIf?: ShowIf;
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
	if (LONE_SURROGATE.test(s)) return field_invalid_chars({ label });
	if ((multiline ? CONTROL_EXCEPT_NEWLINE_TAB : CONTROL).test(s))
		return multiline ? field_control_chars_multiline({ label }) : field_control_chars({ label });
	if (hasInvisible(s)) return invisibleMessage(label);
	if (chars(s) > max) return field_too_long({ label, max });
	return null;
}

/** A bound as a refusal names it: in the request's locale, without grouping ("1000", "0,5"). */
const bound = (n: number) =>
	new Intl.NumberFormat(getLocale(), { useGrouping: false, maximumFractionDigits: 20 }).format(n);

/** A text field of the schema; `label` names it in the page's locale when a message is made. */
export const schemaText = (label: () => string, min: number, max: number) =>
	v.pipe(
		v.string(() => question_must_be_text({ field: label() })),
		v.transform(clean),
		v.check(
			(s) => chars(s) >= min,
			() => question_is_required({ field: label() })
		),
		v.rawCheck(({ dataset, addIssue }) => {
			const problem = dataset.typed ? textProblem(label(), dataset.value, max) : null;
			if (problem) addIssue({ message: problem });
		})
	);
const text = schemaText;

/** A locale's name in its own language, as the editor's fields and refusals name it. */
export const languageName = (locale: TranslationLocale) => LOCALE_NAMES[locale];

/**
 * The `translations` of a question or a rubric criterion (whose schema drops `options`): an object keyed
 * by the non-base locales, each part as limited as its original; another key is refused by name.
 */
export function translationsSchema(limits: { label: number; help: number; option: number }) {
	const entry = (locale: TranslationLocale) => {
		const language = languageName(locale);
		return v.object({
			label: v.optional(text(() => question_field_label_in({ language }), 0, limits.label)),
			help: v.optional(text(() => question_field_help_in({ language }), 0, limits.help)),
			options: v.optional(
				v.array(
					text(() => question_field_option_in({ language }), 0, limits.option),
					() => question_translation_options_list({ language })
				)
			)
		});
	};
	return v.pipe(
		v.strictObject(
			Object.fromEntries(TRANSLATION_LOCALES.map((l) => [l, v.optional(entry(l))])) as Record<
				TranslationLocale,
				v.OptionalSchema<ReturnType<typeof entry>, undefined>
			>,
			(issue) =>
				issue.expected === 'never'
					? question_translation_unknown_locale({
							locale: typeof issue.path?.at(-1)?.key === 'string' ? (issue.path.at(-1)!.key as string) : '',
							locales: TRANSLATION_LOCALES.join(', ')
						})
					: question_translations_object()
		),
		// Empty parts and empty locales are left out, so what is stored is only what was translated.
		v.transform((t) => {
			const out: Translations<QuestionTranslation> = {};
			for (const locale of TRANSLATION_LOCALES) {
				const e: QuestionTranslation | undefined = t[locale];
				if (!e) continue;
				const kept: QuestionTranslation = {};
				if (e.label) kept.label = e.label;
				if (e.help) kept.help = e.help;
				if (e.options?.some(Boolean)) kept.options = e.options;
				if (Object.keys(kept).length) out[locale] = kept;
			}
			return out;
		})
	);
}

const questionTranslations = translationsSchema({ label: LIMITS.label, help: LIMITS.help, option: LIMITS.option });

/**
 * A question's translated options, when given, must match its options in number (an empty one is not
 * allowed: each stands for the original in its place) and differ from each other. The path names the field.
 */
function translatedOptionsProblems(q: {
	type: QuestionType;
	options?: string[];
	translations?: Translations<QuestionTranslation>;
}): { locale: TranslationLocale; message: string }[] {
	if (!isChoice(q.type) || !q.translations) return [];
	const problems: { locale: TranslationLocale; message: string }[] = [];
	for (const locale of TRANSLATION_LOCALES) {
		const options = q.translations[locale]?.options;
		if (!options) continue;
		const language = languageName(locale);
		const count = q.options?.length ?? 0;
		if (options.length !== count || options.some((o) => !o))
			problems.push({ locale, message: question_translation_option_count({ language, count }) });
		else if (new Set(options).size !== options.length)
			problems.push({ locale, message: question_translation_options_differ({ language }) });
	}
	return problems;
}

/** One question as the editor saves it; the rules that join fields (options, bounds) are below. */
export const questionSchema = v.pipe(
	v.object({
		key: v.pipe(
			v.string(() => question_key_text()),
			v.trim(),
			v.regex(KEY, () => question_key_pattern())
		),
		label: text(() => question_field_label(), 1, LIMITS.label),
		help: v.optional(text(() => question_field_help(), 0, LIMITS.help)),
		type: v.picklist(QUESTION_TYPES, () => question_type_unknown()),
		required: v.boolean(),
		options: v.optional(
			v.pipe(
				v.array(text(() => question_field_each_option(), 1, LIMITS.option)),
				v.check(
					(o) => new Set(o).size === o.length,
					() => question_options_differ()
				)
			)
		),
		min: v.optional(
			v.pipe(
				v.number(() => question_min_number()),
				v.finite(() => question_min_number())
			)
		),
		max: v.optional(
			v.pipe(
				v.number(() => question_max_number()),
				v.finite(() => question_max_number())
			)
		),
		accept: v.optional(v.array(v.picklist(FILE_TYPES, () => question_file_accept({ types: FILE_TYPES.join(', ') })))),
		maxFiles: v.optional(
			v.pipe(
				v.number(() => question_file_count({ max: FILE_LIMITS.maxFiles })),
				v.integer(() => question_file_count({ max: FILE_LIMITS.maxFiles })),
				v.minValue(1, () => question_file_count({ max: FILE_LIMITS.maxFiles })),
				v.maxValue(FILE_LIMITS.maxFiles, () => question_file_count({ max: FILE_LIMITS.maxFiles }))
			)
		),
		maxBytes: v.optional(
			v.pipe(
				v.number(() => question_file_size({ max: mebibytes(FILE_LIMITS.maxBytes) })),
				v.integer(() => question_file_size({ max: mebibytes(FILE_LIMITS.maxBytes) })),
				v.minValue(1, () => question_file_size({ max: mebibytes(FILE_LIMITS.maxBytes) })),
				v.maxValue(FILE_LIMITS.maxBytes, () => question_file_size({ max: mebibytes(FILE_LIMITS.maxBytes) }))
			)
		),
		translations: v.optional(questionTranslations),
		showIf: v.optional(showIfSchema)
	}),
	v.forward(
		v.check(
			(q) => q.type !== 'file' || (!!q.accept && q.accept.length > 0),
			() => question_file_accept({ types: FILE_TYPES.join(', ') })
		),
		['accept']
	),
	v.forward(
		v.check(
			(q) =>
				!isChoice(q.type) ||
				(!!q.options && q.options.length >= LIMITS.minOptions && q.options.length <= LIMITS.maxOptions),
			() => question_options_count({ min: LIMITS.minOptions, max: LIMITS.maxOptions })
		),
		['options']
	),
	v.forward(
		v.check(
			(q) => q.min === undefined || q.max === undefined || q.min <= q.max,
			() => question_min_above_max()
		),
		['min']
	),
	// Named on the translated options' own field: translations.<locale>.options.
	v.rawCheck(({ dataset, addIssue }) => {
		if (!dataset.typed) return;
		for (const { locale, message } of translatedOptionsProblems(dataset.value)) {
			const translations = dataset.value.translations!;
			addIssue({
				message,
				path: [
					{ type: 'object', origin: 'value', input: dataset.value, key: 'translations', value: translations },
					{ type: 'object', origin: 'value', input: translations, key: locale, value: translations[locale] },
					{
						type: 'object',
						origin: 'value',
						input: translations[locale] as Record<string, unknown>,
						key: 'options',
						value: translations[locale]!.options
					}
				]
			});
		}
	}),
	// What does not belong to the type is dropped, so a stored question is always in its type's shape.
	v.transform((q): Question => {
		const out: Question = { key: q.key, label: q.label, type: q.type, required: q.required };
		if (q.help) out.help = q.help;
		if (isChoice(q.type)) out.options = q.options;
		if (q.type === 'number') {
			if (q.min !== undefined) out.min = q.min;
			if (q.max !== undefined) out.max = q.max;
		}
		if (q.type === 'file') {
			out.accept = FILE_TYPES.filter((t) => q.accept!.includes(t));
			out.maxFiles = q.maxFiles ?? 1;
			out.maxBytes = q.maxBytes ?? FILE_LIMITS.maxBytes;
		}
		const translations = keptTranslations(q.translations, isChoice(q.type));
		if (translations) out.translations = translations;
		if (q.showIf) out.showIf = q.showIf;
		return out;
	})
);

export const questionsSchema = v.pipe(
	v.array(questionSchema),
	v.maxLength(LIMITS.maxQuestions, () => question_too_many({ max: LIMITS.maxQuestions })),
	// Conditions name an earlier question and a value it can have (show-if.ts): on questions.<i>.showIf.key|equals.
	v.rawCheck(({ dataset, addIssue }) => {
		if (!dataset.typed) return;
		for (const { index, message, part } of showIfProblems(dataset.value)) {
			const q = dataset.value[index]!;
			addIssue({
				message,
				path: [
					{ type: 'array', origin: 'value', input: dataset.value, key: index, value: q },
					{ type: 'object', origin: 'value', input: { ...q }, key: 'showIf', value: q.showIf },
					{ type: 'object', origin: 'value', input: { ...q.showIf }, key: part, value: q.showIf![part] }
				]
			});
		}
	})
);

/** The translations to store: options only for a choice; none at all when nothing is translated. */
function keptTranslations(
	translations: Translations<QuestionTranslation> | undefined,
	choice: boolean
): Translations<QuestionTranslation> | undefined {
	if (!translations) return undefined;
	const out: Translations<QuestionTranslation> = {};
	for (const locale of TRANSLATION_LOCALES) {
		const t = translations[locale];
		if (!t) continue;
		const kept: QuestionTranslation = { ...t };
		if (!choice) delete kept.options;
		if (Object.keys(kept).length) out[locale] = kept;
	}
	return Object.keys(out).length ? out : undefined;
}

/** A question as a page in `locale` shows it: `label`, `help` and `optionTexts` translated where a translation has them. */
export interface LocalizedQuestion extends Question {
	/** What each option reads; `options` stays the originals, which are the values sent and stored. */
	optionTexts: string[];
}

/**
 * The texts a question shows in `locale` (docs/translations.md): its translation's
 * label, help and options where present, else the originals. The options themselves stay the originals,
 * so a choice is sent and stored as the original option text whatever the applicant's locale.
 */
export function questionInLocale(q: Question, locale: string): LocalizedQuestion {
	const options = q.options ?? [];
	const t = (q.translations as Record<string, QuestionTranslation | undefined> | undefined)?.[locale];
	const translated = t?.options && t.options.length === options.length ? t.options : null;
	const out: LocalizedQuestion = {
		...q,
		label: t?.label || q.label,
		optionTexts: options.map((o, i) => translated?.[i] || o)
	};
	if (t?.help) out.help = t.help;
	return out;
}

/**
 * A stored answer as `q` (in a locale) reads it: a chosen option is its text in that locale (the stored
 * value is the original option); any other answer is as stored.
 */
export function answerInLocale(q: LocalizedQuestion, answer: Answer | undefined): Answer | undefined {
	const options = q.options ?? [];
	const text = (value: string) => {
		const i = options.indexOf(value);
		return i === -1 ? value : (q.optionTexts[i] ?? value);
	};
	if (typeof answer === 'string' && isChoice(q.type)) return text(answer);
	if (Array.isArray(answer)) return answer.map(text);
	return answer;
}

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
const FILE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Checks one answer as sent (undefined, a string or several strings) against its question: the
 * stored value, `undefined` for an unanswered optional question, or the message for the field.
 */
export function checkAnswer(q: Question, sent: unknown): { value?: Answer } | { error: string } {
	const values = (Array.isArray(sent) ? (sent as unknown[]) : sent === undefined ? [] : [sent]).map((s) =>
		typeof s === 'string' ? clean(s) : s
	);
	const label = q.label;
	if (values.some((s) => typeof s !== 'string')) return { error: form_answer_text_only({ label }) };
	const strings = (values as string[]).filter((s) => s !== '');
	if (q.type === 'yes_no') {
		if (strings.some((s) => s !== 'on')) return { error: form_answer_tick({ label }) };
		if (q.required && !strings.length) return { error: field_required({ label }) };
		return { value: strings.length > 0 };
	}
	if (!strings.length) return q.required ? { error: field_required({ label }) } : {};
	// A `file` answer: the ids of its stored files, which the server puts in place of the uploads (server/files).
	if (q.type === 'file') {
		if (strings.length > (q.maxFiles ?? 1)) return { error: form_file_too_many({ label, max: q.maxFiles ?? 1 }) };
		return strings.every((s) => FILE_ID.test(s)) ? { value: strings } : { error: form_file_unreadable({ label }) };
	}
	if (q.type === 'multiple_choice') {
		const picked = [...new Set(strings)];
		if (picked.some((s) => !q.options?.includes(s))) return { error: form_answer_choose_among({ label }) };
		return { value: picked };
	}
	if (strings.length > 1) return { error: form_answer_one_answer({ label }) };
	const s = strings[0]!;
	switch (q.type) {
		case 'short_text':
		case 'long_text': {
			const max = q.type === 'short_text' ? LIMITS.shortText : LIMITS.longText;
			const problem = textProblem(q.label, s, max, q.type === 'long_text');
			return problem ? { error: problem } : { value: s };
		}
		case 'single_choice':
			return q.options?.includes(s) ? { value: s } : { error: form_answer_choose_one({ label }) };
		case 'url': {
			const problem = textProblem(q.label, s, LIMITS.url);
			if (problem) return { error: problem };
			return isHttpUrl(s) ? { value: s } : { error: form_answer_link({ label }) };
		}
		case 'number': {
			const n = DECIMAL.test(s) ? Number(s) : NaN;
			if (!Number.isFinite(n)) return { error: form_answer_number({ label }) };
			if (q.min !== undefined && n < q.min) return { error: form_answer_min({ label, min: bound(q.min) }) };
			if (q.max !== undefined && n > q.max) return { error: form_answer_max({ label, max: bound(q.max) }) };
			return { value: n };
		}
	}
	return { error: form_answer_unanswerable({ label }) };
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
	// A hidden question (show-if.ts) is not required and what was sent for it is dropped.
	const shown = shownQuestionKeys(questions, sent);
	for (const q of questions) {
		if (!shown.has(q.key)) continue;
		const field = answerField(q.key);
		const result = checkAnswer(q, Object.hasOwn(sent, field) ? sent[field] : undefined);
		if ('error' in result) errors[field] = result.error;
		else if (result.value !== undefined) answers[q.key] = result.value;
	}
	return Object.keys(errors).length ? { ok: false, errors } : { ok: true, answers };
}

/** The keys of the questions shown for these answers as sent (show-if.ts): the server's checks and the page's live show/hide. */
export function shownQuestionKeys(
	questions: readonly Question[],
	sent: Readonly<Record<string, unknown>>
): Set<string> {
	return shownKeys(questions, (q) => {
		const field = answerField(q.key);
		const result = checkAnswer(q, Object.hasOwn(sent, field) ? sent[field] : undefined);
		return 'value' in result ? result.value : undefined;
	});
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
