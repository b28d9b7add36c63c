import { redirect } from '@sveltejs/kit';
import { TRANSITION_FIELDS, listApplications, parseAdminQuery, transitionApplication } from '$lib/server/applications';
import { formInput, refuse, typedValues } from '$lib/server/forms';
import { requireAdmin } from '$lib/server/guards';
import { withDatabase } from '$lib/server/runtime';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = async ({ locals, url }) => {
	requireAdmin({ locals, url });
	const query = parseAdminQuery(url.searchParams);
	const list = await withDatabase((db) => listApplications(db, query));
	return { query, list };
};

/** The list's own query string (filters, page), without the action's `/name` key. */
function listSearch(url: URL): string {
	const params = new URLSearchParams();
	for (const [key, value] of url.searchParams) if (!key.startsWith('/')) params.append(key, value);
	const search = params.toString();
	return search ? `?${search}` : '';
}

export const actions: Actions = {
	// transitionApplication: guard (404 for anyone not an admin) → limit → validate → one transaction.
	transition: async ({ locals, request, url, setHeaders }) => {
		const admin = requireAdmin({ locals, url });
		const input = formInput(await request.formData(), TRANSITION_FIELDS);
		const outcome = await withDatabase((db) => transitionApplication(db, admin, input));
		if (!outcome.ok) {
			const values = typedValues(input);
			return refuse(setHeaders, outcome, {
				values,
				applicationId: values.applicationId ?? null,
				field: values.field ?? null
			});
		}
		redirect(303, `/admin${listSearch(url)}`);
	}
};
