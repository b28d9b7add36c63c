import { redirect } from '@sveltejs/kit';
import { desc, lt } from 'drizzle-orm';
import type { Database } from '$lib/server/db/client';
import { webhookDeliveries as w } from '$lib/server/db/schema';
import { formInput, readForm, refuse, typedValues } from '$lib/server/platform/forms';
import { requireAdmin } from '$lib/server/auth/guards';
import { runtime, withDatabase } from '$lib/server/platform/runtime';
import { RETRY_FIELDS, channelCounts, retryDelivery, setAsideDeliveries } from '$lib/server/webhooks/admin';
import { SET_ASIDE_AFTER } from '$lib/server/webhooks/outbox';
import { localHref } from '$lib/i18n/locales';
import type { Actions, PageServerLoad } from './$types';

/** Deliveries a page shows: a phone reads 20 cards, not 100 (issue 61); "Older deliveries" pages on. */
const DELIVERIES_PAGE = 20;

/**
 * One page of deliveries, newest first, from just below `before` (a delivery id) or from the newest:
 * keyset on the primary key, so every page costs what the first does. The columns the page shows, the
 * receiver's host only, never its URL's path.
 */
async function deliveryPage(db: Database, before: number | null) {
	const rows = await db
		.select({
			id: w.id,
			eventType: w.eventType,
			urlHost: w.urlHost,
			status: w.status,
			attempts: w.attempts,
			lastStatus: w.lastStatus,
			lastError: w.lastError,
			occurredAt: w.occurredAt,
			nextAttemptAt: w.nextAttemptAt,
			setAsideAt: w.setAsideAt
		})
		.from(w)
		.where(before === null ? undefined : lt(w.id, before))
		.orderBy(desc(w.id))
		.limit(DELIVERIES_PAGE + 1);
	const page = rows.slice(0, DELIVERIES_PAGE);
	return { rows: page, older: rows.length > DELIVERIES_PAGE ? page.at(-1)!.id : null };
}

/** `?before=` as a delivery id; anything else is the first page. */
const beforeOf = (params: URLSearchParams) => {
	const raw = params.get('before') ?? '';
	return /^[1-9]\d{0,14}$/.test(raw) ? Number(raw) : null;
};

export const load: PageServerLoad = async ({ locals, url }) => {
	requireAdmin({ locals, url });
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
		enabled: runtime().webhookEndpoints.length > 0
	};
};

export const actions: Actions = {
	// retryDelivery: guard (404 for anyone not an admin) → limit → validate → one statement.
	retry: async ({ locals, request, url, setHeaders }) => {
		const admin = requireAdmin({ locals, url });
		const input = formInput(await readForm(request), RETRY_FIELDS);
		const outcome = await withDatabase((db) => retryDelivery(db, admin, input));
		if (!outcome.ok) return refuse(setHeaders, outcome, { values: typedValues(input) });
		redirect(303, localHref('/admin/webhooks'));
	}
};
