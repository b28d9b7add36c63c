import { getLocale } from '$lib/paraglide/runtime';
import { fail, redirect } from '@sveltejs/kit';
import { displayNames } from '$lib/server/applications/display-names';
import { reviewTableHref } from '$lib/applications/review-query';
import { builtInName } from '$lib/applications/admin-words';
import { localHref } from '$lib/i18n/locales';
import { cursorText, parseTableQuery, reviewTable } from '$lib/server/applications/review-table';
import { MOVE_FIELDS, awaitsConfirmation } from '$lib/server/applications/move-input';
import { asksInput } from '$lib/server/reviews/asks-input';
import { ASK_PREFIX, BUILT_IN_FIELDS } from '$lib/applications/asks';
import { currentForm } from '$lib/server/forms/versions';
import { transitionApplication } from '$lib/server/applications/moves';
import { BULK_FIELDS, bulkPreview, moveInBulk, parseBulk } from '$lib/server/applications/bulk';
import { formInput, readForm, refuse, typedValues } from '$lib/server/platform/forms';
import type { Failure } from '$lib/server/platform/outcome';
import { requireAdmin, requireWholeAdmin } from '$lib/server/auth/guards';
import { requireInScope } from '$lib/server/team/scope';
import { runtime, withDatabase } from '$lib/server/platform/runtime';
import { RECONCILE_FIELDS, reconcile } from '$lib/server/chain/reconcile';
import { fulfilmentOffer } from '$lib/server/chain/steps';
import { filterChoices, programChoices } from '$lib/server/programs/choices';
import { MESSAGE_FIELDS, messageCount, newSendKey, parseMessage, sendMessage } from '$lib/server/applications/message';
import { fieldError } from '$lib/server/platform/outcome';
import { m } from '$lib/paraglide/messages';
import type { Actions, PageServerLoad } from './$types';

/** The review table's filter, as its query string or the message form's fields name it. */
const FILTER_KEYS = ['q', 'review', 'allowlist', 'distribution', 'votes', 'eligible', 'program', 'round'] as const;

export const load: PageServerLoad = async ({ locals, url }) => {
	const admin = requireAdmin({ locals, url });
	const parsed = parseTableQuery(url.searchParams);
	const quorum = runtime().config.reviewQuorum;
	// The team (issue 59): an admin of some programmes sees their applications and programmes only.
	const scope = admin.programIds;
	const [table, form, programs] = await withDatabase((db) =>
		Promise.all([
			reviewTable(db, parsed, undefined, { quorum, programIds: scope }),
			currentForm(db),
			programChoices(db, getLocale()).then((all) => (scope ? all.filter((p) => scope.includes(p.id)) : all))
		])
	);
	// Assigned reviewers by the names they gave when they applied (issue 61).
	const names = await withDatabase((db) =>
		displayNames(
			db,
			runtime().chain.ens,
			table.rows.flatMap((r) => r.assigned)
		)
	);
	// The query as links write it (cursors back to text), and the server's clock for waiting times.
	const query = {
		...parsed,
		round: parsed.round?.toString(),
		after: cursorText(parsed.after),
		before: cursorText(parsed.before)
	};
	const done = { move: url.searchParams.get('done'), count: url.searchParams.get('count') };
	// A message to applicants (issue 59): how many it was queued for; `message-again`: its confirm was posted
	// again, and nothing more was sent.
	const messageDone = done.move === 'message' || done.move === 'message-again';
	const messaged = messageDone && /^[1-9]\d{0,8}$/.test(done.count ?? '') ? Number(done.count) : null;
	// Programmes and rounds (#57): once there are several, each row names its own ("Builders · Cohort 3");
	// the ids themselves stay on the server (the page's data carries 50 rows).
	const several = programs.length > 1;
	const rounds = new Map(programs.flatMap((p) => p.rounds.map((r) => [r.id, `${p.name} · ${r.name}`] as const)));
	const rows = table.rows.map(({ programId: _p, roundId, ...row }) =>
		several ? { ...row, program: rounds.get(roundId) ?? '' } : row
	);
	return {
		query,
		table: { ...table, rows },
		names,
		now: new Date().toISOString(),
		done,
		messaged,
		messagedAgain: messaged !== null && done.move === 'message-again',
		fulfilment: fulfilmentOffer(runtime().config),
		quorum,
		// An admin of some programmes only (issue 59): the community-wide links are not shown to them.
		limitedToPrograms: !!scope,
		// Programmes and rounds (#57): the filters' choices (the chosen programme's rounds only).
		programs: filterChoices(programs, parsed.program, parsed.round),
		// The answers a bulk "ask for more information" may comment on: the built-in fields and the current form's.
		askable: [
			...Object.entries(BUILT_IN_FIELDS).map(([key, label]) => ({ key, label: builtInName(key) ?? label })),
			...form.questions.map(({ key, label }) => ({ key, label }))
		]
	};
};

export const actions: Actions = {
	// transitionApplication: guard (404 for anyone not an admin) → limit → validate → one transaction.
	transition: async ({ locals, request, url, setHeaders }) => {
		const admin = requireAdmin({ locals, url });
		const form = await readForm(request);
		const input = { ...formInput(form, MOVE_FIELDS), asks: asksInput(form) };
		// Another programme's application: 404 to an admin of some programmes only (issue 59).
		await withDatabase((db) => requireInScope(db, admin, [(input as Record<string, unknown>).applicationId]));
		const outcome = await withDatabase((db) =>
			transitionApplication(db, runtime().outbox, runtime().chain.polygon, admin, input)
		);
		if (!outcome.ok) {
			const values = typedValues(input);
			return refuse(setHeaders, outcome, { values, applicationId: values.applicationId ?? null });
		}
		// Back to the table the form was posted from: its action URL carries the table's query.
		redirect(303, localHref(reviewTableHref(url.searchParams)));
	},

	// One move for up to 100 applications, all or nothing (src/lib/server/applications/bulk.ts). A final move
	// waits for confirmation (awaitsConfirmation): the confirm step names the applications.
	bulk: async ({ locals, request, url, setHeaders }) => {
		const admin = requireAdmin({ locals, url });
		const form = await readForm(request);
		const input = { ...formInput(form, BULK_FIELDS), asks: asksInput(form) };
		// What was typed, the comments on answers too, so a refused form comes back as it was sent.
		const values = { ...typedValues(input), ...typedValues(prefixKeys(input.asks, ASK_PREFIX)) };
		const parsed = parseBulk(input);
		if (!parsed.ok) return refuse(setHeaders, parsed, { values, bulk: true as const, refused: [] });
		const move = parsed.value;
		await withDatabase((db) => requireInScope(db, admin, move.applicationIds));
		if (awaitsConfirmation(move, form)) {
			const preview = await withDatabase((db) => bulkPreview(db, move));
			if (!preview.ok) return refuse(setHeaders, preview, { values, bulk: true as const, refused: refusedOf(preview) });
			return { confirm: { ...move, applications: preview.value } };
		}
		const outcome = await withDatabase((db) => moveInBulk(db, runtime().outbox, runtime().chain.polygon, admin, move));
		if (!outcome.ok) return refuse(setHeaders, outcome, { values, bulk: true as const, refused: refusedOf(outcome) });
		// Back to the same table page (filters and cursor), saying what was done.
		const back = new URLSearchParams(url.searchParams);
		back.set('done', `${move.field}.${move.to}`);
		back.set('count', String(outcome.value.count));
		redirect(303, localHref(reviewTableHref(back)));
	},

	// Writing to applicants (issue 59): the selection, or every application the filter shows; a confirm step says
	// how many will be told and hands out a one-time key; then one statement queues one notification each (inbox,
	// push, e-mail) through the outbox, once per key: that confirm posted again sends nothing and says so.
	message: async ({ locals, request, url, setHeaders }) => {
		const admin = requireAdmin({ locals, url });
		const input = formInput(await readForm(request), [...MESSAGE_FIELDS, ...FILTER_KEYS]);
		const values = typedValues(input);
		const filter = new URLSearchParams();
		for (const key of FILTER_KEYS) {
			const value = typeof input[key] === 'string' ? input[key] : url.searchParams.get(key);
			if (value) filter.set(key, value);
		}
		const parsed = parseMessage(input, filter);
		if (!parsed.ok) return refuse(setHeaders, parsed, { values, writing: true as const });
		// An admin of some programmes writes to their programmes' applicants only: another's id is the 404.
		const chosen = parsed.value.chosen;
		if ('ids' in chosen) await withDatabase((db) => requireInScope(db, admin, chosen.ids));
		const message = { ...parsed.value, chosen: { ...chosen, programIds: admin.programIds } };
		if (!message.confirmed) {
			const count = await withDatabase((db) => messageCount(db, message.chosen));
			if (count === 0)
				return refuse(setHeaders, fieldError('applicationIds', m.admin_message_none()), {
					values,
					writing: true as const
				});
			return {
				messageConfirm: {
					count,
					subject: message.subject,
					body: message.body,
					applicationIds: 'ids' in message.chosen ? message.chosen.ids : [],
					filter: Object.fromEntries(filter),
					sendKey: newSendKey()
				}
			};
		}
		const outcome = await withDatabase((db) => sendMessage(db, runtime().outbox, admin.address, message));
		if (!outcome.ok) return refuse(setHeaders, outcome, { values, writing: true as const });
		const back = new URLSearchParams(url.searchParams);
		back.set('done', outcome.value.again ? 'message-again' : 'message');
		back.set('count', String(outcome.value.count));
		redirect(303, localHref(reviewTableHref(back)));
	},

	// "Find on chain" (src/lib/server/chain/reconcile.ts): guard → validate → read the chain → limit (one per
	// application found) → one transaction. Answers with what was found and what still waits; running it
	// again records nothing new, so a repeated post is harmless.
	reconcile: async ({ locals, request, url, setHeaders }) => {
		// The chain's reconciliation is community-wide: an admin of every programme (issue 59).
		const admin = requireWholeAdmin({ locals, url });
		const input = formInput(await readForm(request), RECONCILE_FIELDS);
		const outcome = await withDatabase((db) => reconcile(db, runtime().config, runtime().outbox, admin, input));
		if (outcome.ok) return { reconciled: outcome.value };
		if (outcome.status === 503) return fail(503, { ...outcome, reconcile: true as const });
		return refuse(setHeaders, outcome, { reconcile: true as const });
	}
};

// The applications a 409 names (a bulk's conflict), for the form to mark.
const refusedOf = (failure: Failure) => (failure.status === 409 ? (failure.refused ?? []) : []);

/** `{ city: … }` as `{ 'ask.city': … }`: field names as the form sent them. */
const prefixKeys = (values: Record<string, unknown>, prefix: string) =>
	Object.fromEntries(Object.entries(values).map(([key, value]) => [`${prefix}${key}`, value]));
