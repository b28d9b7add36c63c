import { redirect } from '@sveltejs/kit';
import { UUID } from '$lib/platform/limits';
import { requireReviewer } from '$lib/server/auth/guards';
import { requireInScope } from '$lib/server/team/scope';
import { formInput, readForm, refuse, typedValues } from '$lib/server/platform/forms';
import { runtime, withDatabase } from '$lib/server/platform/runtime';
import { displayNames } from '$lib/server/applications/display-names';
import { evidenceOf } from '$lib/server/eligibility/evidence';
import { CONFLICT_FIELDS, declareConflict } from '$lib/server/reviews/conflicts';
import { reviewDetail } from '$lib/server/reviews/reviewer-detail';
import { reviewQueue } from '$lib/server/reviews/queue';
import { castVote, voteInput } from '$lib/server/reviews/votes';
import { asksInput } from '$lib/server/reviews/asks-input';
import { localHref } from '$lib/i18n/locales';
import { filesOf } from '$lib/server/files/access';
import type { Actions, PageServerLoad } from './$types';
import { unknownPath } from '$lib/server/platform/not-found';

export const load: PageServerLoad = async ({ locals, params, url }) => {
	const reviewer = requireReviewer({ locals });
	// An id that is not a UUID, or no application: the same 404 as any unknown path.
	if (!UUID.test(params.id)) unknownPath();
	// Another programme's application: the unknown path to a reviewer of some programmes only (issue 59).
	await withDatabase((db) => requireInScope(db, reviewer, [params.id]));
	const detail = await withDatabase((db) => reviewDetail(db, reviewer, params.id));
	if (!detail) unknownPath();
	// What the applicant held at submission, when their form version had requirements (docs/eligibility.md).
	const eligibility = await withDatabase((db) => evidenceOf(db, runtime().chain.polygon, detail.application));
	const voted = url.searchParams.has('voted');
	// After a vote, the next application waiting for this reviewer (longest waiting first), so a review is no dead end.
	const next = voted
		? ((await withDatabase((db) => reviewQueue(db, reviewer.address, { tab: 'queue' }, 1, reviewer.programIds)))
				.rows[0] ?? null)
		: null;
	// The other reviewers by the names they gave when they applied (issue 61).
	const names = await withDatabase((db) =>
		displayNames(
			db,
			runtime().chain.ens,
			(detail.others ?? []).map((v) => v.reviewerAddress)
		)
	);
	// The files of its `file` answers (issue 58), shown with previews.
	const files = await withDatabase((db) => filesOf(db, [params.id]));
	return { ...detail, eligibility, isAdmin: reviewer.isAdmin, voted, next, names, files };
};

export const actions: Actions = {
	// castVote: guard (404 for anyone not a reviewer) → limit → validate → one statement.
	vote: async ({ locals, request, params, setHeaders }) => {
		const reviewer = requireReviewer({ locals });
		if (!UUID.test(params.id)) unknownPath();
		await withDatabase((db) => requireInScope(db, reviewer, [params.id]));
		const form = await readForm(request);
		const asks = asksInput(form);
		const input = { ...voteInput(form), asks };
		const outcome = await withDatabase((db) => castVote(db, runtime().outbox, reviewer, params.id, input));
		if (!outcome.ok) return refuse(setHeaders, outcome, { values: typedValues(input), asks: typedValues(asks) });
		// To the confirmation and its "Next" link, at the top of the page (not the other votes far below).
		redirect(303, localHref(`/review/${params.id}?voted#vote-recorded`));
	},

	// declareConflict: guard → validate → one transaction (the declaration, the assignment passed on).
	conflict: async ({ locals, request, params, setHeaders }) => {
		const reviewer = requireReviewer({ locals });
		if (!UUID.test(params.id)) unknownPath();
		await withDatabase((db) => requireInScope(db, reviewer, [params.id]));
		const input = formInput(await readForm(request), CONFLICT_FIELDS);
		const outcome = await withDatabase((db) => declareConflict(db, runtime().roster, reviewer, params.id, input));
		if (!outcome.ok) return refuse(setHeaders, outcome, { values: typedValues(input), conflictForm: true });
		redirect(303, localHref(`/review/${params.id}#vote-heading`));
	}
};
