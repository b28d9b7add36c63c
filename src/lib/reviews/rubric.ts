import * as v from 'valibot';
import { refusal, rowsInOrder, type Checked, type FieldErrors, type Refused } from '../forms/editor-post';
import { editor_at_most_here } from '$lib/paraglide/messages/editor_at_most_here.js';
import { editor_remove_control_characters } from '$lib/paraglide/messages/editor_remove_control_characters.js';
import { editor_rubric_duplicate_key } from '$lib/paraglide/messages/editor_rubric_duplicate_key.js';
import { editor_rubric_help_max } from '$lib/paraglide/messages/editor_rubric_help_max.js';
import { editor_rubric_key_pattern } from '$lib/paraglide/messages/editor_rubric_key_pattern.js';
import { editor_rubric_label_max } from '$lib/paraglide/messages/editor_rubric_label_max.js';
import { editor_rubric_label_required } from '$lib/paraglide/messages/editor_rubric_label_required.js';
import { editor_rubric_too_many } from '$lib/paraglide/messages/editor_rubric_too_many.js';
import { editor_send_field_once } from '$lib/paraglide/messages/editor_send_field_once.js';
import { editor_send_text_only } from '$lib/paraglide/messages/editor_send_text_only.js';
import { KEY, duplicateKeys, translationsSchema, type Translations } from '../forms/questions';
import {
	blankTranslations,
	draftTranslationsOf,
	translationField,
	translationsCandidate,
	type DraftTranslations
} from '../forms/translations';

/**
 * Reviewers' rubric and votes (docs/decisions/0028-reviewer-votes.md): the criterion schema the rubric editor
 * saves, its draft and edit steps, and the vote choices. Pure, so the server and the browser share them.
 */

export const VOTE_CHOICES = ['approve', 'reject', 'abstain'] as const;
export type VoteChoice = (typeof VOTE_CHOICES)[number];

/** A criterion's score: a whole number from SCORE_MIN to SCORE_MAX. */
export const SCORE_MIN = 1;
export const SCORE_MAX = 5;

export const RUBRIC_LIMITS = {
	label: 200,
	help: 500,
	/** Not in the contract: enough for any rubric, and it bounds a vote's size. */
	maxCriteria: 20
} as const;

/** A criterion's words in one more locale (docs/translations.md). */
export interface CriterionTranslation {
	label?: string;
	help?: string;
}

export interface Criterion {
	key: string;
	label: string;
	help?: string;
	translations?: Translations<CriterionTranslation>;
}

// A criterion has no options: what a hand-written row gives as options is dropped.
const criterionTranslations = v.pipe(
	translationsSchema({ label: RUBRIC_LIMITS.label, help: RUBRIC_LIMITS.help, option: RUBRIC_LIMITS.label }),
	v.transform((t): Translations<CriterionTranslation> => {
		const out: Translations<CriterionTranslation> = {};
		for (const [locale, { label, help }] of Object.entries(t) as [keyof typeof t, CriterionTranslation][])
			if (label || help) out[locale] = { ...(label ? { label } : {}), ...(help ? { help } : {}) };
		return out;
	})
);

/** The rubric as application_forms.rubric holds it. */
export const rubricSchema = v.pipe(
	v.array(
		v.pipe(
			v.object({
				key: v.pipe(
					v.string(),
					v.trim(),
					v.regex(KEY, () => editor_rubric_key_pattern())
				),
				label: v.pipe(
					v.string(),
					v.trim(),
					v.minLength(1, () => editor_rubric_label_required()),
					v.check(
						(s) => [...s].length <= RUBRIC_LIMITS.label,
						() => editor_rubric_label_max({ max: RUBRIC_LIMITS.label })
					)
				),
				help: v.pipe(
					v.optional(v.string(), ''),
					v.trim(),
					v.check(
						(s) => [...s].length <= RUBRIC_LIMITS.help,
						() => editor_rubric_help_max({ max: RUBRIC_LIMITS.help })
					),
					v.transform((s) => s || undefined)
				),
				translations: v.optional(criterionTranslations)
			}),
			// Nothing translated is no translations at all (a stored criterion without them reads the same).
			v.transform(({ translations, ...c }): Criterion =>
				translations && Object.keys(translations).length ? { ...c, translations } : c
			)
		)
	),
	v.maxLength(RUBRIC_LIMITS.maxCriteria, () => editor_rubric_too_many({ max: RUBRIC_LIMITS.maxCriteria }))
);

/** A criterion as a page in `locale` shows it: its translation's label and help where present, else the originals. */
export function criterionInLocale(c: Criterion, locale: string): Criterion {
	const t = (c.translations as Record<string, CriterionTranslation | undefined> | undefined)?.[locale];
	return { ...c, label: t?.label || c.label, help: t?.help || c.help };
}

/** A stored rubric as code reads it: anything that is not a valid rubric (a hand-edited row) reads as none. */
export function rubricOf(stored: unknown): Criterion[] {
	const parsed = v.safeParse(rubricSchema, stored);
	return parsed.success ? parsed.output : [];
}

/** A criterion as the editor's fields hold it (text as typed, so a refused save shows it back). */
export interface DraftCriterion {
	key: string;
	label: string;
	help: string;
	/** Its label and help in the other locales (the `options` of each stay empty; absent: none typed). */
	translations?: DraftTranslations;
}

export const draftCriterionOf = (c: Criterion): DraftCriterion => ({
	key: c.key,
	label: c.label,
	help: c.help ?? '',
	...(c.translations ? { translations: draftTranslationsOf(c.translations) } : {})
});

const FIELD_NAME = /^criteria\.(\d{1,2})\.(key|label|help)$/;
const TRANSLATED_NAME = /^criteria\.(\d{1,2})\.(translations\..+)$/;
// Looser than the schema, so the schema names a too-long label precisely; beyond this the post is refused
// before the schema reads it, the draft shown back as posted.
const RAW_MAX = { key: 200, label: 1000, help: 2000 } as const;
/* eslint-disable no-control-regex */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const CONTROL_EXCEPT_LINES = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
/* eslint-enable no-control-regex */

/** The editor's list in a post: its rows' field, the count it sends of them, and how many it may hold. */
const CRITERIA_POSTED = {
	field: 'criteria',
	countField: 'criterionCount',
	max: RUBRIC_LIMITS.maxCriteria,
	tooMany: (max: number) => editor_rubric_too_many({ max })
};

/**
 * The rubric editor's posted criteria (`criteria.<i>.<field>` in index order, other names ignored) and
 * `criterionCount`, which must match: a post that lost fields never saves a shorter rubric. A text refused
 * for itself (far too long, control characters) is a 400 that keeps the `draft` as posted (issue 61).
 */
export function readRubricDraft(form: {
	entries(): Iterable<[string, FormDataEntryValue]>;
	getAll(name: string): FormDataEntryValue[];
}): { ok: true; value: DraftCriterion[] } | (Refused & { draft?: DraftCriterion[] }) {
	const byIndex = new Map<number, Partial<Omit<DraftCriterion, 'translations'>>>();
	const translated = new Map<number, DraftTranslations>();
	const seen = new Set<string>();
	const problems: FieldErrors = {};
	for (const [name, value] of form.entries()) {
		const item = TRANSLATED_NAME.exec(name);
		const tr = item ? translationField(item[2]!) : null;
		const match = tr ? null : FIELD_NAME.exec(name);
		// A criterion has no options to translate.
		if ((!tr && !match) || tr?.part === 'options') continue;
		const field = tr ? tr.part : (match![2] as 'key' | 'label' | 'help');
		if (typeof value !== 'string') return refusal({ [name]: editor_send_text_only() });
		if ((field === 'help' ? CONTROL_EXCEPT_LINES : CONTROL).test(value) || /\p{Cs}/u.test(value))
			problems[name] ??= editor_remove_control_characters();
		const max = RAW_MAX[field];
		if ([...value.trim()].length > max) problems[name] ??= editor_at_most_here({ max });
		const index = Number((tr ? item : match)![1]);
		const fields = byIndex.get(index) ?? {};
		if (seen.has(name)) return refusal({ [name]: editor_send_field_once() });
		seen.add(name);
		if (tr) {
			const all = translated.get(index) ?? blankTranslations();
			all[tr.locale][tr.part] = value;
			translated.set(index, all);
		} else fields[field] = value;
		byIndex.set(index, fields);
	}
	const rows = rowsInOrder(form, byIndex, CRITERIA_POSTED);
	if (!rows.ok) return rows;
	const draft = rows.value.map(([i, f]) => ({
		key: f.key ?? '',
		label: f.label ?? '',
		help: f.help ?? '',
		translations: translated.get(i)
	}));
	if (Object.keys(problems).length) return { ...refusal(problems), draft };
	return { ok: true, value: draft };
}

/** The draft checked against the rubric schema: the criteria to save, or a message per field (`criteria.<i>.<field>`). */
export function parseRubricDraft(draft: readonly DraftCriterion[]): Checked<Criterion[]> {
	const candidate = draft.map((d) => ({
		key: d.key,
		label: d.label,
		help: d.help,
		translations: translationsCandidate(d.translations, false)
	}));
	const result = v.safeParse(rubricSchema, candidate, { abortPipeEarly: true });
	const errors: FieldErrors = {};
	if (!result.success)
		for (const issue of result.issues) {
			const path = issue.path?.map((p) => String(p.key)) ?? [];
			// A translation's problem on its own field: criteria.<i>.translations.<locale>.<part>.
			const name = ['criteria', ...path.slice(0, path[1] === 'translations' ? 4 : 2)].join('.');
			if (!(name in errors)) errors[name] = issue.message;
		}
	const trimmed = draft.map((d) => ({ key: d.key.trim() }));
	for (const i of duplicateKeys(trimmed))
		errors[`criteria.${i}.key`] ??= editor_rubric_duplicate_key({ key: trimmed[i]!.key });
	if (Object.keys(errors).length || !result.success) return refusal(errors);
	return { ok: true, value: result.output };
}

/** One of the rubric editor's buttons: add, or up/down/remove of a criterion the draft has. */
export function isRubricStep(op: string, count: number): boolean {
	if (op === 'add') return true;
	const match = /^(up|down|remove):(\d{1,2})$/.exec(op);
	return !!match && Number(match[2]) < count;
}

/** An edit step of the rubric (without JavaScript a post of its own; with it, run in the browser). */
export function applyRubricStep(draft: readonly DraftCriterion[], op: string): DraftCriterion[] {
	const [verb, at] = op.split(':');
	const i = Number(at);
	const next = [...draft];
	if (verb === 'add' && next.length < RUBRIC_LIMITS.maxCriteria) next.push({ key: '', label: '', help: '' });
	if (!Number.isInteger(i) || i < 0 || i >= next.length) return next;
	if (verb === 'remove') next.splice(i, 1);
	const j = verb === 'up' ? i - 1 : verb === 'down' ? i + 1 : -1;
	if (j >= 0 && j < next.length) [next[i], next[j]] = [next[j]!, next[i]!];
	return next;
}

/** A vote's own mean score (its criteria's), null without scores. */
export function meanOf(scores: Record<string, number>): number | null {
	const values = Object.values(scores).filter((s) => typeof s === 'number');
	return values.length ? values.reduce((a, b) => a + b, 0) / values.length : null;
}

/** "3.7" for a mean score; "—" without one. */
export const scoreText = (mean: number | string | null | undefined) =>
	mean === null || mean === undefined || mean === '' ? '—' : Number(mean).toFixed(1);
