import { redirect } from '@sveltejs/kit';
import { formInput, readForm, refuse, typedValues } from '$lib/server/platform/forms';
import { requireWholeAdmin } from '$lib/server/auth/guards';
import { runtime, withDatabase } from '$lib/server/platform/runtime';
import {
	RETRY_FIELDS,
	channelCounts,
	deliveryPage,
	retryDelivery,
	setAsideDeliveries
} from '$lib/server/webhooks/delivery-log';
import { SET_ASIDE_AFTER } from '$lib/server/outbox/store';
import { localHref } from '$lib/i18n/locales';
import type { Actions, PageServerLoad } from './$types';

/** `?before=` as a delivery id; anything else is the first page. */
const beforeOf = (params: URLSearchParams) => {
	const raw = params.get('before') ?? '';
	return /^[1-9]\d{0,14}$/.test(raw) ? Number(raw) : null;
};

export const load: PageServerLoad = async ({ locals, url }) => {
	requireWholeAdmin({ locals, url });
	const before = beforeOf(url.searchParams);
	const [page, channels, setAside] = await withDatabase((db) =>
		Promise.all([deliveryPage(db, before), channelCounts(db), setAsideDeliveries(db)])
	);
	return {
		deliveries: page.rows,
		older: page.older,
		first: before === null,
		channels,
		setAside,
		setAsideAfter: SET_ASIDE_AFTER,
		enabled: runtime().outbox.webhooks.length > 0
	};
};

export const actions: Actions = {
	// retryDelivery: guard (404 for anyone not an admin) → limit → validate → one statement.
	retry: async ({ locals, request, url, setHeaders }) => {
		const admin = requireWholeAdmin({ locals, url });
		const input = formInput(await readForm(request), RETRY_FIELDS);
		const outcome = await withDatabase((db) => retryDelivery(db, admin, input));
		if (!outcome.ok) return refuse(setHeaders, outcome, { values: typedValues(input) });
		redirect(303, localHref('/admin/webhooks'));
	}
};
