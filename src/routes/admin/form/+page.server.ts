import { getLocale } from '$lib/paraglide/runtime';
import { programInLocale } from '$lib/programs/programs';
import { redirect } from '@sveltejs/kit';
import { readForm, refuse } from '$lib/server/platform/forms';
import { fieldError } from '$lib/server/platform/outcome';
import { requireWholeAdmin } from '$lib/server/auth/guards';
import { withDatabase } from '$lib/server/platform/runtime';
import { currentForm } from '$lib/server/forms/versions';
import { applyEditStep, draftOf, isEditStep, parseDraft, readQuestionsDraft } from '$lib/forms/question-editor';
import { QUESTION_TYPES } from '$lib/forms/questions';
import { saveFormVersion } from '$lib/server/forms/save-version';
import { applyRubricStep, draftCriterionOf, isRubricStep, readRubricDraft, rubricOf } from '$lib/reviews/rubric';
import { saveRubric } from '$lib/server/reviews/rubric';
import { eligibility as saveEligibility, eligibilityEditor } from './eligibility-action';
import { localHref } from '$lib/i18n/locales';
import { programBySlug } from '$lib/server/programs/admin';
import type { Database } from '$lib/server/db/client';
import { m } from '$lib/paraglide/messages';
import type { Actions, PageServerLoad } from './$types';
import { unknownPath } from '$lib/server/platform/not-found';

const text = (value: FormDataEntryValue | null | undefined) => (typeof value === 'string' ? value : '');
/** A refused read of a draft without the draft itself, which each action answers under its own name. */
const refusalOf = <R extends { draft?: unknown }>({ draft: _draft, ...failure }: R) => failure;

/**
 * The programme whose form this is: `?program=<slug>` (an unknown or archived one is the unknown path's
 * 404), else membership's (null), as before programmes.
 */
async function programOf(db: Database, url: URL) {
	const slug = url.searchParams.get('program');
	if (slug === null) return null;
	const program = await programBySlug(db, slug);
	if (!program || program.archivedAt) unknownPath();
	return program;
}

/** What follows an action's name to keep the programme (`?/save&program=<slug>`), and the page to go back to. */
const queryOf = (program: { slug: string } | null) => (program ? `&program=${program.slug}` : '');
const backTo = (program: { slug: string } | null, saved: string) =>
	localHref(`/admin/form?${program ? `program=${program.slug}&` : ''}${saved}`);

/**
 * The builder's three parts, one at a time (`?part=`), each with its own Save: the questions (a new
 * version), the reviewers' rubric and who may apply; anything else is the questions. A refused save
 * shows its own part whatever the URL (the page reads which draft came back).
 */
const PARTS = ['questions', 'rubric', 'eligibility'] as const;
export type BuilderPart = (typeof PARTS)[number];
const partOf = (url: URL): BuilderPart => PARTS.find((part) => part === url.searchParams.get('part')) ?? 'questions';

export const load: PageServerLoad = async ({ locals, url }) => {
	requireWholeAdmin({ locals, url });
	const [program, form] = await withDatabase(async (db) => {
		const program = await programOf(db, url);
		return [program, await currentForm(db, program?.id)] as const;
	});
	return {
		// Named in the page's locale where the community translated its name (issue 61).
		program: program && { slug: program.slug, name: programInLocale(program, getLocale()).name },
		query: queryOf(program),
		formId: form.id,
		questions: form.questions.map(draftOf),
		// The reviewers' rubric (#27)
		rubric: rubricOf(form.rubric).map(draftCriterionOf),
		// Which part was saved (?saved, ?saved=eligibility): each section says its own 'saved', once.
		saved: url.searchParams.get('saved'),
		part: partOf(url),
		eligibility: await eligibilityEditor(form.eligibility)
	};
};

export const actions: Actions = {
	// An edit step without JavaScript (add, move, retire, preview): the draft comes back, nothing is written.
	edit: async ({ locals, request, url, setHeaders }) => {
		requireWholeAdmin({ locals, url });
		const form = await readForm(request);
		const read = readQuestionsDraft(form);
		if (!read.ok) return refuse(setHeaders, refusalOf(read), { draft: read.draft ?? null });
		const op = form.getAll('op');
		const newType = form.getAll('newType');
		if (op.length !== 1 || !isEditStep(text(op[0]), read.value.length))
			return refuse(setHeaders, fieldError('op', m.editor_choose_a_button()), { draft: null });
		if (
			newType.length > 1 ||
			(newType.length === 1 && !(QUESTION_TYPES as readonly string[]).includes(text(newType[0])))
		)
			return refuse(setHeaders, fieldError('newType', m.question_type_unknown()), {
				draft: null
			});
		const draft = applyEditStep(read.value, text(op[0]), text(newType[0]));
		if (op[0] !== 'preview') return { draft };
		const parsed = parseDraft(draft);
		return parsed.ok ? { draft, preview: true } : refuse(setHeaders, parsed, { draft });
	},
	// saveFormVersion: guard (404 for anyone not an admin) → validate → one insert (a new version).
	save: async ({ locals, request, url, setHeaders }) => {
		const admin = requireWholeAdmin({ locals, url });
		const program = await withDatabase((db) => programOf(db, url));
		const read = readQuestionsDraft(await readForm(request));
		if (!read.ok) return refuse(setHeaders, refusalOf(read), { draft: read.draft ?? null });
		const outcome = await withDatabase((db) => saveFormVersion(db, admin, read.value, program?.id));
		if (!outcome.ok) return refuse(setHeaders, outcome, { draft: read.value });
		redirect(303, backTo(program, 'saved'));
	},
	// The reviewers' rubric (#27), src/routes/admin/form/RubricEditor.svelte: an edit step without JavaScript.
	rubricEdit: async ({ locals, request, url, setHeaders }) => {
		requireWholeAdmin({ locals, url });
		const form = await readForm(request);
		const read = readRubricDraft(form);
		if (!read.ok) return refuse(setHeaders, refusalOf(read), { rubricDraft: read.draft ?? null });
		const op = form.getAll('op');
		if (op.length !== 1 || !isRubricStep(text(op[0]), read.value.length))
			return refuse(setHeaders, fieldError('op', m.editor_choose_a_rubric_button()), { rubricDraft: null });
		return { rubricDraft: applyRubricStep(read.value, text(op[0])) };
	},
	// saveRubric: guard (404 for anyone not an admin) → validate → a new form version, questions carried forward.
	rubric: async ({ locals, request, url, setHeaders }) => {
		const admin = requireWholeAdmin({ locals, url });
		const program = await withDatabase((db) => programOf(db, url));
		const read = readRubricDraft(await readForm(request));
		if (!read.ok) return refuse(setHeaders, refusalOf(read), { rubricDraft: read.draft ?? null });
		const outcome = await withDatabase((db) => saveRubric(db, admin, read.value, program?.id));
		if (!outcome.ok) return refuse(setHeaders, outcome, { rubricDraft: read.value });
		redirect(303, backTo(program, 'part=rubric&saved'));
	},
	// saveEligibility (docs/eligibility.md): guard → validate → read the chain → one insert; or an edit step (add, remove).
	eligibility: (event) => saveEligibility(event, programOf)
};
