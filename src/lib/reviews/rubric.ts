import * as v from 'valibot';
import { KEY, duplicateKeys } from '../forms/questions';

/**
 * Reviewers' rubric and votes (DECISIONS "Reviewers and votes"): the criterion schema the rubric editor
 * saves, its draft and edit steps, and the vote choices. Pure, so the server and the browser share them.
 */

export const VOTE_CHOICES = ['approve', 'reject', 'abstain'] as const;
export type VoteChoice = (typeof VOTE_CHOICES)[number];

export const VOTE_LABELS: Record<VoteChoice, string> = { approve: 'Approve', reject: 'Reject', abstain: 'Abstain' };

/** A criterion's score: a whole number from SCORE_MIN to SCORE_MAX. */
export const SCORE_MIN = 1;
export const SCORE_MAX = 5;

export const RUBRIC_LIMITS = {
	label: 200,
	help: 500,
	/** Not in the contract: enough for any rubric, and it bounds a vote's size. */
	maxCriteria: 20
} as const;

export interface Criterion {
	key: string;
	label: string;
	help?: string;
}

/** The rubric as application_forms.rubric holds it. */
export const rubricSchema = v.pipe(
	v.array(
		v.object({
			key: v.pipe(
				v.string(),
				v.trim(),
				v.regex(KEY, 'Key: a lowercase letter, then up to 39 lowercase letters, digits or _.')
			),
			label: v.pipe(
				v.string(),
				v.trim(),
				v.minLength(1, 'Label is required.'),
				v.check((s) => [...s].length <= RUBRIC_LIMITS.label, `Label: at most ${RUBRIC_LIMITS.label} characters.`)
			),
			help: v.pipe(
				v.optional(v.string(), ''),
				v.trim(),
				v.check((s) => [...s].length <= RUBRIC_LIMITS.help, `Help: at most ${RUBRIC_LIMITS.help} characters.`),
				v.transform((s) => s || undefined)
			)
		})
	),
	v.maxLength(RUBRIC_LIMITS.maxCriteria, `A rubric has at most ${RUBRIC_LIMITS.maxCriteria} criteria.`)
);

/** A stored rubric as code reads it: anything that is not a valid rubric (a hand-edited row) reads as none. */
export function rubricOf(stored: unknown): Criterion[] {
	const parsed = v.safeParse(rubricSchema, stored);
	return parsed.success ? parsed.output : [];
}

type FieldErrors = Record<string, string>;
// The shape of the server's 400 (platform/outcome.ts), so a route can answer it as it is.
type Refused = { ok: false; status: 400; code: 'invalid_request'; message: string; errors: FieldErrors };
type Checked<T> = { ok: true; value: T } | Refused;

const refusal = (errors: FieldErrors): Refused => ({
	ok: false,
	status: 400,
	code: 'invalid_request',
	message: 'Some fields need attention.',
	errors
});

/** A criterion as the editor's fields hold it (text as typed, so a refused save shows it back). */
export interface DraftCriterion {
	key: string;
	label: string;
	help: string;
}

export const draftCriterionOf = (c: Criterion): DraftCriterion => ({ key: c.key, label: c.label, help: c.help ?? '' });

const FIELD_NAME = /^criteria\.(\d{1,2})\.(key|label|help)$/;
// Looser than the schema, so the schema names a too-long label precisely; beyond this the post is refused whole.
const RAW_MAX = { key: 200, label: 1000, help: 2000 } as const;
/* eslint-disable no-control-regex */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const CONTROL_EXCEPT_LINES = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
/* eslint-enable no-control-regex */

/**
 * The rubric editor's posted criteria (`criteria.<i>.<field>` in index order, other names ignored) and
 * `criterionCount`, which must match: a post that lost fields never saves a shorter rubric.
 */
export function readRubricDraft(form: Pick<FormData, 'entries' | 'getAll'>): Checked<DraftCriterion[]> {
	const byIndex = new Map<number, Partial<DraftCriterion>>();
	for (const [name, value] of form.entries()) {
		const match = FIELD_NAME.exec(name);
		if (!match) continue;
		const field = match[2] as keyof DraftCriterion;
		if (typeof value !== 'string') return refusal({ [name]: 'Send text only.' });
		if ((field === 'help' ? CONTROL_EXCEPT_LINES : CONTROL).test(value) || /\p{Cs}/u.test(value))
			return refusal({ [name]: 'Remove the control characters from this field.' });
		if ([...value.trim()].length > RAW_MAX[field])
			return refusal({ [name]: `At most ${RAW_MAX[field]} characters here.` });
		const fields = byIndex.get(Number(match[1])) ?? {};
		if (fields[field] !== undefined) return refusal({ [name]: 'Send this field once.' });
		fields[field] = value;
		byIndex.set(Number(match[1]), fields);
	}
	if (byIndex.size > RUBRIC_LIMITS.maxCriteria)
		return refusal({ criteria: `A rubric has at most ${RUBRIC_LIMITS.maxCriteria} criteria.` });
	const count = form.getAll('criterionCount');
	if (count.length !== 1 || count[0] !== String(byIndex.size))
		return refusal({ criteria: 'The form arrived incomplete. Reload the page and try again.' });
	return {
		ok: true,
		value: [...byIndex.entries()]
			.sort(([a], [b]) => a - b)
			.map(([, f]) => ({ key: f.key ?? '', label: f.label ?? '', help: f.help ?? '' }))
	};
}

/** The draft checked against the rubric schema: the criteria to save, or a message per field (`criteria.<i>.<field>`). */
export function parseRubricDraft(draft: readonly DraftCriterion[]): Checked<Criterion[]> {
	const result = v.safeParse(rubricSchema, draft, { abortPipeEarly: true });
	const errors: FieldErrors = {};
	if (!result.success)
		for (const issue of result.issues) {
			const name = ['criteria', ...(issue.path?.map((p) => String(p.key)) ?? []).slice(0, 2)].join('.');
			if (!(name in errors)) errors[name] = issue.message;
		}
	const trimmed = draft.map((d) => ({ key: d.key.trim() }));
	for (const i of duplicateKeys(trimmed))
		errors[`criteria.${i}.key`] ??= `Key "${trimmed[i]!.key}" is used by an earlier criterion: keys must differ.`;
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
