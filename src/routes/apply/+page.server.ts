import { redirect } from '@sveltejs/kit';
import { APPLICATION_FIELDS, applicationsOf, submitApplication } from '$lib/server/applications/submit';
import { formInput, readForm, refuse, typedValues } from '$lib/server/platform/forms';
import { asSeenByApplicant } from '$lib/server/applications/history';
import { requireMember } from '$lib/server/auth/guards';
import { withDatabase } from '$lib/server/platform/runtime';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = async ({ locals }) => {
	const member = requireMember({ locals });
	const applications = await withDatabase((db) => applicationsOf(db, member.address));
	return { address: member.address, applications: asSeenByApplicant(applications, member.address) };
};

export const actions: Actions = {
	// submitApplication: guard → limit → validate → one transaction (inside submitApplication).
	default: async ({ locals, request, setHeaders }) => {
		const member = requireMember({ locals });
		const input = formInput(await readForm(request), APPLICATION_FIELDS);
		const outcome = await withDatabase((db) => submitApplication(db, member, input));
		if (!outcome.ok) return refuse(setHeaders, outcome, { values: typedValues(input) });
		redirect(303, '/apply');
	}
};
