import { error, redirect, type RequestEvent } from '@sveltejs/kit';
import { APPLICATION_FIELDS, formQuestionsFor } from '$lib/server/applications/submit';
import { draftByScript, draftFieldsOf, saveDraft } from '$lib/server/applications/drafts';
import { editApplication, withdrawApplication } from '$lib/server/applications/own';
import { formInput, readForm, refuse, typedValues } from '$lib/server/platform/forms';
import { requireMember } from '$lib/server/auth/guards';
import { answersInput, typedAnswers } from '$lib/server/forms/answers';
import { blobStoreOf } from '$lib/server/files/store';
import { receiveForm } from '$lib/server/files/receive';
import { filesUnavailable } from '$lib/server/files/uploads';
import { runtime, withDatabase } from '$lib/server/platform/runtime';
import { applyProgram, programBySlug } from '$lib/server/programs/rounds';
import { localHref } from '$lib/i18n/locales';
import { unknownPath } from '$lib/server/platform/not-found';

// The applicant's own application on either apply route (issue 58, docs/pages-and-forms.md "/apply"):
// `?/draft`, `?/edit` and `?/withdraw`, beside the routes' default action (the submission).

type Event = Pick<RequestEvent, 'locals' | 'request' | 'setHeaders'>;

const back = (slug: string | null) => localHref(slug === null ? '/apply' : `/apply/${slug}`);

/** The programme a post acts on: `slug`'s (unknown or archived: the unknown path's 404, before the sign-in check), or the one `/apply` serves. */
async function programIdOf(slug: string | null): Promise<number> {
	const target = await withDatabase((db) => (slug === null ? applyProgram(db) : programBySlug(db, slug)));
	if (!target) unknownPath();
	return target.program.id;
}

/** `?/draft`: stores what is typed (only its size is checked); 303 back to the form (a script's fetch gets 204: drafts.ts). */
export async function draftTo(slug: string | null, { locals, request, setHeaders }: Event) {
	const programId = await programIdOf(slug);
	const member = requireMember({ locals });
	const form = await readForm(request);
	const fields = draftFieldsOf(form);
	const outcome = await withDatabase((db) => saveDraft(db, member.address, programId, fields));
	// A script's save (the page's autosave): its refusal's status and the JSON error body; the typed text stays in the page.
	if (!outcome.ok && draftByScript(request)) {
		if (outcome.status === 429) setHeaders({ 'retry-after': String(outcome.retryAfterSeconds) });
		error(outcome.status, { code: outcome.code, message: outcome.message });
	}
	if (!outcome.ok)
		return refuse(setHeaders, outcome, {
			values: typedValues(formInput(form, APPLICATION_FIELDS)),
			answers: typedAnswers(answersInput(form)),
			draftFailed: true
		});
	redirect(303, back(slug));
}

/** `?/edit`: the apply fields replace the pending application (409 `locked` once it is not the applicant's to change). */
export async function editOf(slug: string | null, { locals, request, setHeaders }: Event) {
	if (slug !== null) await programIdOf(slug);
	const member = requireMember({ locals });
	// Streamed as a submission is (apply-route.ts): what was staged and not kept goes once it is answered.
	const files = blobStoreOf(runtime().config.files);
	const questions = () => withDatabase((db) => formQuestionsFor(db, slug));
	const received = await receiveForm(request, questions, files);
	try {
		const input = formInput(received.form, APPLICATION_FIELDS);
		const answers = answersInput(received.form);
		const typed = { values: typedValues(input), answers: typedAnswers(answers), editing: true };
		if (received.storeFailed) return refuse(setHeaders, filesUnavailable(), typed);
		const outcome = await withDatabase((db) => editApplication(db, member, slug, input, answers, files));
		if (!outcome.ok && outcome.status === 404) unknownPath();
		if (!outcome.ok) return refuse(setHeaders, outcome, typed);
		redirect(303, `${back(slug)}?done=edited`);
	} finally {
		await received.dropStaged();
	}
}

/** `?/withdraw` (`reason` 0–500): the application becomes withdrawn; the member may apply again at once. */
export async function withdrawOf(slug: string | null, { locals, request, setHeaders }: Event) {
	if (slug !== null) await programIdOf(slug);
	const member = requireMember({ locals });
	const form = await readForm(request);
	const input = formInput(form, ['reason']);
	const outcome = await withDatabase((db) =>
		withdrawApplication(db, runtime().outbox, blobStoreOf(runtime().config.files), member, slug, input)
	);
	if (!outcome.ok && outcome.status === 404) unknownPath();
	if (!outcome.ok) return refuse(setHeaders, outcome, { withdrawValues: typedValues(input), withdrawing: true });
	redirect(303, `${back(slug)}?done=withdrawn`);
}

/**
 * The apply routes declare their default action (the submission, `POST /apply`) beside `draft`, `edit`
 * and `withdraw`. SvelteKit refuses a default beside named actions it can list (Object.keys), so this
 * makes every action but the default an own property that is not enumerable: `?/draft` still finds it,
 * as does the unknown-action guard (Object.hasOwn). Called once, on the module's `actions`.
 */
export function alongsideDefault<A extends { default: unknown }>(actions: A): A {
	for (const name of Object.keys(actions))
		if (name !== 'default') Object.defineProperty(actions, name, { enumerable: false });
	return actions;
}
