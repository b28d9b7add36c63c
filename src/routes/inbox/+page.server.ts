import { redirect } from '@sveltejs/kit';
import { requireMember } from '$lib/server/auth/guards';
import { EMAIL_FIELDS, addEmail, emailOf, removeEmail } from '$lib/server/notifications/email';
import { READ_FIELDS, inboxOf, markRead } from '$lib/server/notifications/inbox';
import { subscriptionCount } from '$lib/server/notifications/subscriptions';
import { formInput, readForm, refuse, typedValues } from '$lib/server/platform/forms';
import { runtime, withDatabase } from '$lib/server/platform/runtime';
import { localHref } from '$lib/i18n/locales';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = async ({ locals, url }) => {
	const member = requireMember({ locals });
	const { notifications } = runtime().config;
	const [entries, email, browsers] = await withDatabase((db) =>
		Promise.all([inboxOf(db, member.address), emailOf(db, member.address), subscriptionCount(db, member.address)])
	);
	return {
		entries,
		// The member's own address, on their own page only.
		email: notifications.mail ? email : null,
		mailOn: notifications.mail !== null,
		vapidPublicKey: notifications.push?.publicKey ?? null,
		browsers,
		done: url.searchParams.get('done')
	};
};

export const actions: Actions = {
	// markRead: guard → validate → one UPDATE of the member's own rows.
	read: async ({ locals, request, setHeaders }) => {
		const member = requireMember({ locals });
		const input = formInput(await readForm(request), READ_FIELDS);
		const outcome = await withDatabase((db) => markRead(db, member.address, input));
		if (!outcome.ok) return refuse(setHeaders, outcome, {});
		redirect(303, localHref('/inbox'));
	},
	// addEmail: guard → limit → validate → one transaction (the verification mail queued in it).
	email: async ({ locals, request, setHeaders }) => {
		const member = requireMember({ locals });
		const input = formInput(await readForm(request), EMAIL_FIELDS);
		const mailOn = runtime().config.notifications.mail !== null;
		const outcome = await withDatabase((db) => addEmail(db, member.address, input, mailOn));
		if (!outcome.ok) return refuse(setHeaders, outcome, { values: typedValues(input) });
		redirect(303, localHref(outcome.value.verified ? '/inbox' : '/inbox?done=email'));
	},
	emailRemove: async ({ locals }) => {
		const member = requireMember({ locals });
		await withDatabase((db) => removeEmail(db, member.address));
		redirect(303, localHref('/inbox?done=emailRemove'));
	}
};
