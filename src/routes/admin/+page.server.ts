import { redirect } from '@sveltejs/kit';
import { adminListHref } from '$lib/admin-list';
import { cursorText, parseTableQuery, reviewTable } from '$lib/server/admin-list';
import { TRANSITION_FIELDS, transitionApplication } from '$lib/server/applications';
import { formInput, readForm, refuse, typedValues } from '$lib/server/forms';
import { requireAdmin } from '$lib/server/guards';
import { withDatabase } from '$lib/server/runtime';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = async ({ locals, url }) => {
	requireAdmin({ locals, url });
	const parsed = parseTableQuery(url.searchParams);
	const table = await withDatabase((db) => reviewTable(db, parsed));
	// The query as links write it (cursors back to text), and the server's clock for waiting times.
	const query = { ...parsed, after: cursorText(parsed.after), before: cursorText(parsed.before) };
	return { query, table, now: new Date().toISOString(), done: url.searchParams.get('done') };
};

export const actions: Actions = {
	// transitionApplication: guard (404 for anyone not an admin) → limit → validate → one transaction.
	transition: async ({ locals, request, url, setHeaders }) => {
		const admin = requireAdmin({ locals, url });
		const input = formInput(await readForm(request), TRANSITION_FIELDS);
		const outcome = await withDatabase((db) => transitionApplication(db, admin, input));
		if (!outcome.ok) {
			const values = typedValues(input);
			return refuse(setHeaders, outcome, { values, applicationId: values.applicationId ?? null });
		}
		// Back to the table the form was posted from: its action URL carries the table's query.
		redirect(303, adminListHref(url.searchParams));
	}
};
