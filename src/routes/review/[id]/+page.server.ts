import { error, redirect } from '@sveltejs/kit';
import { UUID } from '$lib/platform/limits';
import { requireReviewer } from '$lib/server/auth/guards';
import { formInput, readForm, refuse, typedValues } from '$lib/server/platform/forms';
import { withDatabase } from '$lib/server/platform/runtime';
import { evidenceOf } from '$lib/server/eligibility/evidence';
import { reviewDetail } from '$lib/server/reviews/detail';
import { castVote, voteFieldNames } from '$lib/server/reviews/votes';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = async ({ locals, params, url }) => {
	const reviewer = requireReviewer({ locals });
	// An id that is not a UUID, or no application: the same 404 as any unknown path.
	if (!UUID.test(params.id)) error(404, 'Not Found');
	const detail = await withDatabase((db) => reviewDetail(db, reviewer, params.id));
	if (!detail) error(404, 'Not Found');
	// What the applicant held at submission, when their form version had requirements (docs/eligibility.md).
	const eligibility = await withDatabase((db) => evidenceOf(db, detail.application));
	return { ...detail, eligibility, isAdmin: reviewer.isAdmin, voted: url.searchParams.has('voted') };
};

export const actions: Actions = {
	// castVote: guard (404 for anyone not a reviewer) → limit → validate → one statement.
	vote: async ({ locals, request, params, setHeaders }) => {
		const reviewer = requireReviewer({ locals });
		if (!UUID.test(params.id)) error(404, 'Not Found');
		const form = await readForm(request);
		const input = formInput(form, voteFieldNames(form));
		const outcome = await withDatabase((db) => castVote(db, reviewer, params.id, input));
		if (!outcome.ok) return refuse(setHeaders, outcome, { values: typedValues(input) });
		redirect(303, `/review/${params.id}?voted#votes`);
	}
};
