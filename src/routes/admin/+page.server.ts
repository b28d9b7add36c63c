import { redirect } from '@sveltejs/kit';
import { adminListHref } from '$lib/admin-list';
import { listApplications, parseAdminQuery } from '$lib/server/admin-list';
import { TRANSITION_FIELDS, transitionApplication } from '$lib/server/applications';
import { formInput, readForm, refuse, typedValues } from '$lib/server/forms';
import { requireAdmin } from '$lib/server/guards';
import { withDatabase } from '$lib/server/runtime';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = async ({ locals, url }) => {
	requireAdmin({ locals, url });
	const query = parseAdminQuery(url.searchParams);
	const list = await withDatabase((db) => listApplications(db, query));
	return { query, list };
};

export const actions: Actions = {
	// transitionApplication: guard (404 for anyone not an admin) → limit → validate → one transaction.
	transition: async ({ locals, request, url, setHeaders }) => {
		const admin = requireAdmin({ locals, url });
		const input = formInput(await readForm(request), TRANSITION_FIELDS);
		const outcome = await withDatabase((db) => transitionApplication(db, admin, input));
		if (!outcome.ok) {
			const values = typedValues(input);
			return refuse(setHeaders, outcome, {
				values,
				applicationId: values.applicationId ?? null,
				field: values.field ?? null
			});
		}
		// Back to the list the form was posted from: its action URL carries the list's query.
		redirect(303, adminListHref(url.searchParams));
	}
};
