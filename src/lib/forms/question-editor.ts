import * as v from 'valibot';
import { refusal, rowsInOrder, type Checked, type FieldErrors, type Refused } from './editor-post';
import { editor_at_most_here } from '$lib/paraglide/messages/editor_at_most_here.js';
import { editor_question_duplicate_key } from '$lib/paraglide/messages/editor_question_duplicate_key.js';
import { editor_question_n } from '$lib/paraglide/messages/editor_question_n.js';
import { editor_remove_control_characters } from '$lib/paraglide/messages/editor_remove_control_characters.js';
import { editor_required_is_a_box } from '$lib/paraglide/messages/editor_required_is_a_box.js';
import { editor_send_field_once } from '$lib/paraglide/messages/editor_send_field_once.js';
import { editor_send_text_only } from '$lib/paraglide/messages/editor_send_text_only.js';
import { question_too_many } from '$lib/paraglide/messages/question_too_many.js';
import {
	FILE_LIMITS,
	FILE_TYPES,
	KEY,
	LIMITS,
	type FileType,
	QUESTION_TYPES,
	duplicateKeys,
	isChoice,
	questionsSchema,
	type Question,
	type QuestionType
} from './questions';
import {
	blankTranslations,
	draftTranslationsOf,
	lines,
	translationField,
	translationsCandidate,
	type DraftTranslations
} from './translations';
import { equalsText, showIfCandidate } from './show-if';

/**
 * /admin/form's draft: the posted fields as questions, the edit steps, the checks before a save. Pure:
 * the server reads and checks a post with these, the browser edits and previews with the same ones.
 */

/** A refused read of the editor's post; `draft`: the questions as posted, when they could be read as text. */
type ReadRefused = Refused & { draft?: DraftQuestion[] };

/** A question as the editor's fields hold it: text as typed, so a refused save shows it back. */
export interface DraftQuestion {
	key: string;
	label: string;
	help: string;
	type: string;
	required: boolean;
	/** One option a line. */
	options: string;
	min: string;
	max: string;
	/** A `file` question (issue 58): the accepted types one a line, how many files, the largest in MiB. */
	accept: string;
	files: string;
	size: string;
	/** The question's words in the other locales, by locale (absent: none typed). */
	translations?: DraftTranslations;
	/** "Show only if" (show-if.ts): an earlier question's key (empty: always shown) and the value, as typed. */
	showIfKey: string;
	showIfEquals: string;
}

const DRAFT_FIELDS = [
	'key',
	'label',
	'help',
	'type',
	'required',
	'options',
	'min',
	'max',
	'accept',
	'files',
	'size',
	'showIfKey',
	'showIfEquals'
] as const;
/** The accepted types are checkboxes: the one field sent once per type ticked. */
const REPEATED_FIELDS = new Set(['accept']);
const MIB = 1024 * 1024;
const FIELD_NAME = /^questions\.(\d{1,3})\.([a-zA-Z]+)$/;
const TRANSLATED_NAME = /^questions\.(\d{1,3})\.(translations\..+)$/;

export const draftOf = (q: Question): DraftQuestion => ({
	key: q.key,
	label: q.label,
	help: q.help ?? '',
	type: q.type,
	required: q.required,
	options: (q.options ?? []).join('\n'),
	min: q.min === undefined ? '' : String(q.min),
	max: q.max === undefined ? '' : String(q.max),
	accept: (q.accept ?? []).join('\n'),
	files: q.maxFiles === undefined ? '' : String(q.maxFiles),
	size: q.maxBytes === undefined ? '' : String(Math.round((q.maxBytes / MIB) * 100) / 100),
	...(q.translations ? { translations: draftTranslationsOf(q.translations) } : {}),
	showIfKey: q.showIf?.key ?? '',
	showIfEquals: equalsText(q.showIf?.equals)
});

export const blankQuestion = (type: string): DraftQuestion => ({
	...draftOf({ key: '', label: '', type: 'short_text', required: false }),
	type: (QUESTION_TYPES as readonly string[]).includes(type) ? type : 'short_text'
});

/** The editor's list in a post: its rows' field, the count it sends of them, and how many it may hold. */
const QUESTIONS_POSTED = {
	field: 'questions',
	countField: 'questionCount',
	max: LIMITS.maxQuestions,
	tooMany: (max: number) => question_too_many({ max })
};

/**
 * The editor's posted questions (`questions.<i>.<field>`, in index order; other names ignored), or a
 * 400 when a field is not one piece of text or there are more questions than a form may hold. A text
 * refused for itself (far too long, control characters) is a 400 that keeps the `draft` as posted, so the
 * builder shows back what was typed with the field marked (issue 61).
 */
export function readQuestionsDraft(form: {
	entries(): Iterable<[string, FormDataEntryValue]>;
	getAll(name: string): FormDataEntryValue[];
}): { ok: true; value: DraftQuestion[] } | ReadRefused {
	const byIndex = new Map<number, Partial<Record<string, string>>>();
	const translated = new Map<number, DraftTranslations>();
	const seen = new Set<string>();
	const problems: FieldErrors = {};
	for (const [name, value] of form.entries()) {
		const item = TRANSLATED_NAME.exec(name);
		const tr = item ? translationField(item[2]!) : null;
		const match = tr ? null : FIELD_NAME.exec(name);
		if (!tr && (!match || !(DRAFT_FIELDS as readonly string[]).includes(match[2]!))) continue;
		if (typeof value !== 'string') return refusal({ [name]: editor_send_text_only() });
		const problem = rawProblem(tr ? tr.part : match![2]!, value);
		if (problem) problems[name] ??= problem;
		const index = Number((tr ? item : match)![1]);
		const fields = byIndex.get(index) ?? {};
		if (tr) {
			// A question of translations only is still a question (its other fields empty), so the count sees it.
			byIndex.set(index, fields);
			const all = translated.get(index) ?? blankTranslations();
			if (seen.has(name)) return refusal({ [name]: editor_send_field_once() });
			seen.add(name);
			all[tr.locale][tr.part] = value;
			translated.set(index, all);
			continue;
		}
		if (REPEATED_FIELDS.has(match![2]!) && fields[match![2]!] !== undefined) {
			fields[match![2]!] += `\n${value}`;
			continue;
		}
		if (fields[match![2]!] !== undefined) return refusal({ [name]: editor_send_field_once() });
		fields[match![2]!] = value;
		byIndex.set(index, fields);
	}
	// The editor says how many questions it sends, so a post that lost its fields never saves an empty form.
	const rows = rowsInOrder(form, byIndex, QUESTIONS_POSTED);
	if (!rows.ok) return rows;
	const draft = rows.value.map(([i, f]) => ({
		key: f.key ?? '',
		label: f.label ?? '',
		help: f.help ?? '',
		type: f.type ?? '',
		required: f.required === 'on',
		options: f.options ?? '',
		min: f.min ?? '',
		max: f.max ?? '',
		accept: f.accept ?? '',
		files: f.files ?? '',
		size: f.size ?? '',
		translations: translated.get(i),
		showIfKey: f.showIfKey ?? '',
		showIfEquals: f.showIfEquals ?? ''
	}));
	if (Object.keys(problems).length) return { ...refusal(problems), draft };
	return { ok: true, value: draft };
}

// C0/C1 controls (line breaks allowed only where a field has lines), a mark a checkbox never sends, or more
// text than any field holds: refused before anything else looks at the draft.
/* eslint-disable no-control-regex */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const CONTROL_EXCEPT_LINES = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
/* eslint-enable no-control-regex */
// Looser than the schema's limits, so the schema names a too-long label or key precisely.
const RAW_MAX: Record<string, number> = {
	key: 200,
	label: 1000,
	help: 2000,
	type: 50,
	options: 5000,
	min: 100,
	max: 100,
	accept: 50,
	files: 20,
	size: 20,
	showIfKey: 200,
	showIfEquals: 5000
};
function rawProblem(field: string, value: string): string | null {
	if (field === 'required') return value === 'on' ? null : editor_required_is_a_box();
	const lines = field === 'help' || field === 'options';
	if ((lines ? CONTROL_EXCEPT_LINES : CONTROL).test(value) || /\p{Cs}/u.test(value))
		return editor_remove_control_characters();
	const max = RAW_MAX[field] ?? 0;
	if ([...value.trim()].length > max) return editor_at_most_here({ max });
	return null;
}

const DECIMAL = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
const bound = (s: string) => (s.trim() === '' ? undefined : DECIMAL.test(s.trim()) ? Number(s.trim()) : NaN);

/** The draft checked against the question schema: the questions to save, or a message per field (`questions.<i>.<field>`). */
export function parseDraft(draft: readonly DraftQuestion[]): Checked<Question[]> {
	// Options and bounds count only for the types that have them (fields of another type are left out).
	const candidate = draft.map((d) => ({
		key: d.key,
		label: d.label,
		help: d.help,
		type: d.type as QuestionType,
		required: d.required,
		options: isChoice(d.type as QuestionType) ? lines(d.options) : undefined,
		min: d.type === 'number' ? bound(d.min) : undefined,
		max: d.type === 'number' ? bound(d.max) : undefined,
		...fileCandidate(d),
		translations: translationsCandidate(d.translations, isChoice(d.type as QuestionType)),
		showIf: showIfCandidate(d.showIfKey, d.showIfEquals, draft.find((t) => t.key.trim() === d.showIfKey.trim())?.type)
	}));
	const result = v.safeParse(questionsSchema, candidate, { abortPipeEarly: true });
	const errors: FieldErrors = {};
	if (!result.success)
		for (const issue of result.issues) {
			const path = issue.path?.map((p) => String(p.key)) ?? [];
			// An option's own problem is reported on the options box, which holds them all; a translation's
			// on its own field (questions.<i>.translations.<locale>.<part>).
			// A condition's on the editor's own two fields (questions.<i>.showIfKey, questions.<i>.showIfEquals);
			// the file limits are posted as `files` and `size` (MiB): named by those fields.
			const name =
				path[1] === 'showIf'
					? `questions.${path[0]}.${path[2] === 'equals' ? 'showIfEquals' : 'showIfKey'}`
					: [
							'questions',
							...path.slice(0, path[1] === 'translations' ? 4 : 2).map((p) => FILE_FIELD_NAMES[p] ?? p)
						].join('.');
			// The field's own message: the page's summary names its question and field in the link to it
			// ("Question 1: Label (Español)"), as the rubric's and the rules' do (issue 61).
			if (!(name in errors)) errors[name] = issue.message;
		}
	for (const i of duplicateKeys(candidate))
		errors[`questions.${i}.key`] ??= editor_question_duplicate_key({ key: candidate[i]!.key });
	if (Object.keys(errors).length || !result.success) return refusal(errors);
	return { ok: true, value: result.output };
}

const FILE_FIELD_NAMES: Record<string, string> = { maxFiles: 'files', maxBytes: 'size' };

/** A `file` question's limits as the schema reads them: types from the ticked boxes, the size from MiB to bytes. */
function fileCandidate(d: DraftQuestion): Pick<Question, 'accept' | 'maxFiles' | 'maxBytes'> {
	if (d.type !== 'file') return {};
	const size = bound(d.size);
	return {
		accept: lines(d.accept) as Question['accept'],
		maxFiles: bound(d.files) ?? 1,
		maxBytes: size === undefined ? FILE_LIMITS.maxBytes : Math.round(size * MIB)
	};
}

/** One of the editor's buttons: add, preview, or up/down/retire of a question the draft has. */
export function isEditStep(op: string, count: number): boolean {
	if (op === 'add' || op === 'preview') return true;
	const match = /^(up|down|retire):(\d{1,2})$/.exec(op);
	return !!match && Number(match[2]) < count;
}

/** An edit step without JavaScript (`op`): add a question, move one up or down, retire one. */
export function applyEditStep(draft: DraftQuestion[], op: string, newType: string): DraftQuestion[] {
	const [verb, at] = op.split(':');
	const i = Number(at);
	const next = [...draft];
	if (verb === 'add' && next.length < LIMITS.maxQuestions) next.push(blankQuestion(newType));
	if (!Number.isInteger(i) || i < 0 || i >= next.length) return next;
	if (verb === 'retire') next.splice(i, 1);
	const j = verb === 'up' ? i - 1 : verb === 'down' ? i + 1 : -1;
	if (j >= 0 && j < next.length) [next[i], next[j]] = [next[j]!, next[i]!];
	return next;
}

/** The draft with the question at `from` moved to `to` (drag and drop); out of range, the draft as it was. */
export function moveQuestion(draft: readonly DraftQuestion[], from: number, to: number): DraftQuestion[] {
	const next = [...draft];
	if (![from, to].every((i) => Number.isInteger(i) && i >= 0 && i < next.length)) return next;
	next.splice(to, 0, ...next.splice(from, 1));
	return next;
}

/**
 * The item a list editor (questions, rubric criteria) opens on load: the first the server refused
 * (an error named `<prefix>.<i>.…`), else the first without a label (a new one), else none.
 */
export function firstToOpen(
	items: readonly { label: string }[],
	errors: Record<string, string>,
	prefix: string
): number | null {
	const refused = items.findIndex((_, i) => Object.keys(errors).some((k) => k.startsWith(`${prefix}.${i}.`)));
	const blank = items.findIndex((d) => !d.label.trim());
	return refused >= 0 ? refused : blank >= 0 ? blank : null;
}

/**
 * Where the open item is after an edit step or a move, so it stays open as it moves: the open
 * index (or null) before, and the step (`add`, `up:i`, `down:i`, `retire:i` or `remove:i`, `move:from:to`).
 */
export function openAfter(open: number | null, op: string, count: number): number | null {
	const [verb, a, b] = op.split(':');
	const i = Number(a);
	if (verb === 'add') return count - 1;
	if (open === null) return null;
	if (verb === 'retire' || verb === 'remove') return open === i ? null : open > i ? open - 1 : open;
	const [from, to] =
		verb === 'up' ? [i, i - 1] : verb === 'down' ? [i, i + 1] : verb === 'move' ? [i, Number(b)] : [-1, -1];
	if (from < 0 || to < 0 || to >= count) return open;
	if (open === from) return to;
	if (from < open && open <= to) return open - 1;
	if (to <= open && open < from) return open + 1;
	return open;
}

/** The draft as applicants would see it, even before it passes its checks (a preview while typing). */
export function previewOf(draft: readonly DraftQuestion[]): Question[] {
	return draft.map((d, i) => ({
		key: KEY.test(d.key.trim()) ? d.key.trim() : `question_${i + 1}`,
		label: d.label.trim() || editor_question_n({ n: i + 1 }),
		help: d.help.trim() || undefined,
		type: (QUESTION_TYPES as readonly string[]).includes(d.type) ? (d.type as QuestionType) : 'short_text',
		required: d.required,
		options: lines(d.options),
		min: Number.isFinite(bound(d.min)) ? bound(d.min) : undefined,
		max: Number.isFinite(bound(d.max)) ? bound(d.max) : undefined,
		...(d.type === 'file'
			? {
					accept: lines(d.accept).filter((t): t is FileType => (FILE_TYPES as readonly string[]).includes(t)),
					maxFiles: Number.isInteger(bound(d.files)) ? bound(d.files) : 1,
					maxBytes: Number.isFinite(bound(d.size)) ? Math.round(bound(d.size)! * MIB) : FILE_LIMITS.maxBytes
				}
			: {}),
		translations: previewTranslations(d.translations),
		...previewShowIf(d, draft)
	}));
}

/** A condition as typed so far, if it names another question of the draft (the preview notes it). */
function previewShowIf(d: DraftQuestion, draft: readonly DraftQuestion[]): Pick<Question, 'showIf'> {
	const target = draft.find((t) => t !== d && t.key.trim() === d.showIfKey.trim());
	const cond = target && showIfCandidate(d.showIfKey, d.showIfEquals, target.type);
	return cond ? { showIf: cond as Question['showIf'] } : {};
}

/** The translations typed so far, as a question holds them (a preview in another locale shows them). */
function previewTranslations(draft: DraftTranslations | undefined): Question['translations'] {
	const out: NonNullable<Question['translations']> = {};
	for (const [locale, t] of Object.entries(draft ?? {}) as [keyof DraftTranslations, DraftTranslations['es']][]) {
		const options = lines(t.options);
		if (t.label.trim() || t.help.trim() || options.length)
			out[locale] = { label: t.label.trim(), help: t.help.trim(), options };
	}
	return out;
}

/** A key made from a label, for a question whose key is still empty. */
export function keyFromLabel(label: string): string {
	const slug = label
		.toLowerCase()
		.normalize('NFKD')
		.replace(/[^a-z0-9]+/g, '_')
		.replace(/^[^a-z]+|_+$/g, '')
		.slice(0, 40)
		.replace(/_+$/, '');
	return slug || '';
}
