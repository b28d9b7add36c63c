import { redirect } from '@sveltejs/kit';
import { APPLICATION_FIELDS, applicationsOf, submitApplication } from '$lib/server/applications';
import { formInput, typedValues } from '$lib/server/forms';
import { memberOr401, refuse, withDatabase } from '$lib/server/pages';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = async ({ locals }) => {
	const member = memberOr401(locals);
	const applications = await withDatabase((db) => applicationsOf(db, member.address));
	return { address: member.address, applications };
};

export const actions: Actions = {
	// submitApplication: guard → limit → validate → one transaction (inside submitApplication).
	default: async ({ locals, request, setHeaders }) => {
		const member = memberOr401(locals);
		const input = formInput(await request.formData(), APPLICATION_FIELDS);
		const outcome = await withDatabase((db) => submitApplication(db, member, input));
		if (!outcome.ok) return refuse(setHeaders, outcome, { values: typedValues(input) });
		redirect(303, '/apply');
	}
};
