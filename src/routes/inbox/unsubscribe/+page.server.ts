import { error } from '@sveltejs/kit';
import { readToken } from '$lib/server/notifications/tokens';
import { unsubscribe } from '$lib/server/notifications/email';
import { linkSecrets } from '$lib/server/notifications/senders';
import { runtime, withDatabase } from '$lib/server/platform/runtime';
import { m } from '$lib/paraglide/messages';
import type { Actions, PageServerLoad } from './$types';

const badLink = () =>
	error(400, {
		code: 'invalid_request',
		message: m.inbox_bad_link()
	});

/** The page behind the List-Unsubscribe link: a button, so that a mail scanner's GET stops nothing. */
export const load: PageServerLoad = ({ url }) => {
	const token = url.searchParams.get('token');
	if (!readToken(token)) badLink();
	return { token: token!, stopped: false };
};

export const actions: Actions = {
	// RFC 8058 one-click (List-Unsubscribe=One-Click from the mail provider) and the page's own button alike.
	default: async ({ url }) => {
		const outcome = await withDatabase((db) =>
			unsubscribe(db, url.searchParams.get('token'), linkSecrets(runtime().config))
		);
		if (!outcome.ok) badLink();
		return { stopped: true };
	}
};
