import { redirect, type RequestEvent } from '@sveltejs/kit';
import { APPLICATION_FIELDS, formQuestionsFor, submitApplication } from '$lib/server/applications/submit';
import { applyFormData, applyListData } from '$lib/server/applications/apply-page';
import { memberRecord, standingsAndRecord } from '$lib/server/applications/record';
import { formInput, refuse, typedValues } from '$lib/server/platform/forms';
import { requireMember } from '$lib/server/auth/guards';
import { answersInput, typedAnswers } from '$lib/server/forms/answers';
import { runtime, withDatabase } from '$lib/server/platform/runtime';
import { applyProgramOf, programBySlug } from '$lib/server/programs/rounds';
import { localHref } from '$lib/i18n/locales';
import { blobStoreOf } from '$lib/server/files/store';
import { receiveForm } from '$lib/server/files/receive';
import { filesUnavailable } from '$lib/server/files/uploads';
import { unknownPath } from '$lib/server/platform/not-found';

// The two apply routes, /apply and /apply/<slug> (docs/pages-and-forms.md "/apply"): one page, one action.

const zone = () => runtime().config.communityTimeZone;

/** A programme's page: an unknown or archived slug is the unknown path's 404, for everyone (before the sign-in check). */
async function programOrNotFound(slug: string) {
	const target = await withDatabase((db) => programBySlug(db, slug));
	if (!target) unknownPath();
	return target;
}

/** `/apply`: the list of the open programmes while several are open, else the form of the one it serves. */
export async function loadApply({ locals }: Pick<RequestEvent, 'locals'>) {
	const member = requireMember({ locals });
	return withDatabase(async (db) => {
		// The programmes and what the member sent, together: one round trip (issue 60, bench/README.md "Figures behind the code").
		const { standings, record } = await standingsAndRecord(db, member.address);
		const open = standings.filter((s) => s.round !== null);
		if (open.length > 1) return applyListData(member, record, open, zone());
		return await applyFormData(db, member, record, applyProgramOf(standings), zone(), runtime().chain.polygon);
	});
}

/** `/apply/<slug>`: that programme's form. */
export async function loadProgramApply({ locals, params }: Pick<RequestEvent<{ slug: string }>, 'locals' | 'params'>) {
	const target = await programOrNotFound(params.slug);
	const member = requireMember({ locals });
	return withDatabase(async (db) =>
		applyFormData(db, member, await memberRecord(db, member.address), target, zone(), runtime().chain.polygon)
	);
}

/**
 * The apply action of either route: submitApplication to `slug`'s programme (null: the one `/apply`
 * serves), then back to the page it was posted from. Guard → limit → validate → one transaction.
 */
export async function submitTo(
	slug: string | null,
	{ locals, request, setHeaders }: Pick<RequestEvent, 'locals' | 'request' | 'setHeaders'>
) {
	if (slug !== null) await programOrNotFound(slug);
	const member = requireMember({ locals });
	// The body streams in, each file into the store as it arrives (files/receive.ts): what the request
	// staged and did not keep is removed once it is answered, whatever the answer.
	const files = blobStoreOf(runtime().config.files);
	const questions = () => withDatabase((db) => formQuestionsFor(db, slug));
	const received = await receiveForm(request, questions, files);
	try {
		const input = formInput(received.form, APPLICATION_FIELDS);
		const answers = answersInput(received.form);
		const typed = { values: typedValues(input), answers: typedAnswers(answers) };
		if (received.storeFailed) return refuse(setHeaders, filesUnavailable(), typed);
		const outcome = await withDatabase((db) =>
			submitApplication(db, runtime().outbox, member, input, answers, {
				program: slug,
				timeZone: zone(),
				files,
				polygon: runtime().chain.polygon,
				roster: runtime().roster
			})
		);
		// Archived between the look above and the submission: the same 404.
		if (!outcome.ok && outcome.status === 404) unknownPath();
		if (!outcome.ok) return refuse(setHeaders, outcome, typed);
		// `done=submitted`: the page says the application was received, with scripts or without (the enhanced
		// form also says so itself; a plain form post only sees the page it is sent back to).
		redirect(303, `${localHref(slug === null ? '/apply' : `/apply/${slug}`)}?done=submitted`);
	} finally {
		await received.dropStaged();
	}
}
