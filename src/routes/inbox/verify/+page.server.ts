import { error } from '@sveltejs/kit';
import { verifyEmail } from '$lib/server/notifications/email';
import { linkSecrets } from '$lib/server/notifications/senders';
import { runtime, withDatabase } from '$lib/server/platform/runtime';
import type { PageServerLoad } from './$types';

/** The one-time link of the verification e-mail: confirms the address (no session needed: the link is the proof). */
export const load: PageServerLoad = async ({ url }) => {
	const token = url.searchParams.get('token');
	const outcome = await withDatabase((db) => verifyEmail(db, token, linkSecrets(runtime().config)));
	if (!outcome.ok)
		error(400, {
			code: 'invalid_request',
			message: outcome.status === 400 ? (outcome.errors.token ?? outcome.message) : outcome.message
		});
	return {};
};
