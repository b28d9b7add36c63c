import { getLocale } from '$lib/paraglide/runtime';
import { programInLocale } from '$lib/programs/programs';
import { redirect } from '@sveltejs/kit';
import { requireWholeAdmin } from '$lib/server/auth/guards';
import { formInput, readForm, refuse, typedValues } from '$lib/server/platform/forms';
import { runtime, withDatabase } from '$lib/server/platform/runtime';
import {
	REVIEWER_FIELDS,
	SETTINGS_FIELDS,
	listReviewers,
	perApplication,
	programsPerApplication,
	saveReviewSettings
} from '$lib/server/reviews/roster';
import { addTeamMember, removeTeamMember } from '$lib/server/team/team';
import { formatWait, workloadOf } from '$lib/server/reviews/workload';
import { displayNames } from '$lib/server/applications/display-names';
import { localHref } from '$lib/i18n/locales';
import type { Actions, PageServerLoad } from './$types';

// The reviewers, their workload and how many review each application (decision 0040); admins only.
export const load: PageServerLoad = async ({ locals, url }) => {
	requireWholeAdmin({ locals, url });
	return withDatabase(async (db) => {
		const [reviewers, n, programs] = await Promise.all([
			listReviewers(db, runtime().roster),
			perApplication(db),
			programsPerApplication(db)
		]);
		const addresses = reviewers.map((r) => r.address);
		const [workload, names] = await Promise.all([
			workloadOf(db, addresses),
			displayNames(db, runtime().chain.ens, addresses)
		]);
		return {
			reviewers: reviewers.map((r, i) => ({
				...r,
				...workload[i]!,
				medianToVote: formatWait(workload[i]!.medianSecondsToVote)
			})),
			names,
			perApplication: n,
			// Issue 57: each programme's own number, offered once there are several.
			// Each named in the page's locale where the community translated its name (issue 61).
			programs:
				programs.length > 1
					? programs.map(({ translations, ...p }) => ({
							...p,
							name: programInLocale({ name: p.name, translations }, getLocale()).name
						}))
					: [],
			done: url.searchParams.get('done')
		};
	});
};

export const actions: Actions = {
	// A reviewer of every programme, added to the team (issue 59: the one list of who reviews); this process
	// sees it at once, the others within a second.
	add: async ({ locals, request, url, setHeaders }) => {
		const admin = requireWholeAdmin({ locals, url });
		const input = formInput(await readForm(request), REVIEWER_FIELDS);
		const outcome = await withDatabase((db) =>
			addTeamMember(db, runtime().chain.ens, admin, { address: input.address, role: 'reviewer' })
		);
		if (!outcome.ok) return refuse(setHeaders, outcome, { values: typedValues(input), action: 'add' });
		redirect(303, localHref('/admin/reviewers?done=added'));
	},
	// Off the team as a reviewer of every programme: their votes stay; their open assignments pass on in the
	// same transaction.
	remove: async ({ locals, request, url, setHeaders }) => {
		const admin = requireWholeAdmin({ locals, url });
		const input = formInput(await readForm(request), REVIEWER_FIELDS);
		const outcome = await withDatabase((db) =>
			removeTeamMember(db, runtime().roster, admin, { address: input.address, role: 'reviewer' })
		);
		if (!outcome.ok) return refuse(setHeaders, outcome, { values: typedValues(input), action: 'remove' });
		redirect(303, localHref('/admin/reviewers?done=removed'));
	},
	// saveReviewSettings: perApplication 0–10 (with `program`, that programme's own), for submissions from now on.
	settings: async ({ locals, request, url, setHeaders }) => {
		const admin = requireWholeAdmin({ locals, url });
		const input = formInput(await readForm(request), SETTINGS_FIELDS);
		const outcome = await withDatabase((db) => saveReviewSettings(db, admin, input));
		// A programme's own form answers under its own name, so the refusal shows beside that one.
		const action = typeof input.program === 'string' && input.program ? `settings.${input.program}` : 'settings';
		if (!outcome.ok) return refuse(setHeaders, outcome, { values: typedValues(input), action });
		redirect(303, localHref('/admin/reviewers?done=settings'));
	}
};
