import { redirect } from '@sveltejs/kit';
import { CHECKIN_FIELDS, checkin, checkInPage } from '$lib/server/checkins/checkins';
import { formInput, readForm, refuse, typedValues } from '$lib/server/platform/forms';
import { requireMember } from '$lib/server/auth/guards';
import { runtime, withDatabase } from '$lib/server/platform/runtime';
import { localHref } from '$lib/i18n/locales';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = async ({ locals }) => {
	const member = requireMember({ locals });
	const { checkIns, summary } = await withDatabase((db) => checkInPage(db, member.address));
	return { address: member.address, checkIns, summary };
};

export const actions: Actions = {
	// checkin: guard → limit → validate → write (inside checkin).
	default: async ({ locals, request, setHeaders }) => {
		const member = requireMember({ locals });
		const input = formInput(await readForm(request), CHECKIN_FIELDS);
		const outcome = await withDatabase((db) => checkin(db, runtime().outbox, member, input));
		if (!outcome.ok) return refuse(setHeaders, outcome, { values: typedValues(input) });
		redirect(303, localHref('/checkin'));
	}
};
