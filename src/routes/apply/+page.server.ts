import { redirect } from '@sveltejs/kit';
import { APPLICATION_FIELDS, applicationsOf, submitApplication } from '$lib/server/applications/submit';
import { formInput, readForm, refuse, typedValues } from '$lib/server/platform/forms';
import { applyStanding } from '$lib/server/applications/may-apply';
import { asSeenByApplicant } from '$lib/server/applications/history';
import { requireMember } from '$lib/server/auth/guards';
import { answersInput, typedAnswers } from '$lib/server/forms/answers';
import { currentForm, formVersions } from '$lib/server/forms/versions';
import { runtime, withDatabase } from '$lib/server/platform/runtime';
import { eligibilityBanner } from '$lib/server/eligibility/banner';
import { applyProgram } from '$lib/server/programs/rounds';
import { roundClosedNotice } from '$lib/server/programs/community-zone';
import { localHref } from '$lib/i18n/locales';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = async ({ locals }) => {
	const member = requireMember({ locals });
	const [applications, target] = await withDatabase((db) =>
		Promise.all([applicationsOf(db, member.address), applyProgram(db)])
	);
	const form = await withDatabase((db) => currentForm(db, target?.program.id));
	// The member's own answers are shown with the labels of the version they answered.
	const versions = await withDatabase((db) =>
		formVersions(
			db,
			applications.map((a) => a.formId)
		)
	);
	// Whether the member qualifies, before they write anything (only when a form could be shown to them).
	// The rule submitApplication applies (may-apply.ts); a rejection that named a day shows that day.
	const standing = applyStanding(applications.filter((a) => a.programId === target?.program.id));
	const reapplyFrom = standing.may === 'not' && standing.reason === 'wait' ? standing.until : null;
	// A new application needs an open round (a resubmission does not): the page says when the next opens.
	const closed = standing.may === 'apply' && !target?.round ? roundClosedNotice(target?.nextRound ?? null) : null;
	return {
		reapplyFrom,
		mayApply: closed ? ('not' as const) : standing.may,
		closed,
		eligibility: standing.may !== 'not' ? await eligibilityBanner(form, member.address) : null,
		address: member.address,
		applications: asSeenByApplicant(applications, member.address),
		questions: form.questions,
		askedBy: Object.fromEntries(versions)
	};
};

export const actions: Actions = {
	// submitApplication: guard → limit → validate → one transaction (inside submitApplication).
	default: async ({ locals, request, setHeaders }) => {
		const member = requireMember({ locals });
		const form = await readForm(request);
		const input = formInput(form, APPLICATION_FIELDS);
		const answers = answersInput(form);
		const outcome = await withDatabase((db) => submitApplication(db, runtime().outbox, member, input, answers));
		if (!outcome.ok) return refuse(setHeaders, outcome, { values: typedValues(input), answers: typedAnswers(answers) });
		redirect(303, localHref('/apply'));
	}
};
