import { redirect } from '@sveltejs/kit';
import { UUID } from '$lib/platform/limits';
import { applicationDetail } from '$lib/server/applications/admin-detail';
import { MOVE_FIELDS, awaitsConfirmation, parseSingleMove } from '$lib/server/applications/move-input';
import { transitionApplication } from '$lib/server/applications/moves';
import { asksInput } from '$lib/server/reviews/asks-input';
import { formInput, readForm, refuse, typedValues } from '$lib/server/platform/forms';
import { NOTE_FIELDS, addNote } from '$lib/server/applications/notes';
import { requireAdmin } from '$lib/server/auth/guards';
import { requireInScope } from '$lib/server/team/scope';
import { formerReviewers } from '$lib/server/team/team';
import { runtime, withDatabase } from '$lib/server/platform/runtime';
import { applicationVotes, reviewersOf } from '$lib/server/reviews/votes-and-reviewers';
import { ASSIGN_FIELDS, assignReviewer, unassignReviewer } from '$lib/server/reviews/assigning';
import { checkEligibilityAgain, evidenceOf } from '$lib/server/eligibility/evidence';
import { localHref } from '$lib/i18n/locales';
import { displayNames } from '$lib/server/applications/display-names';
import { filesOf } from '$lib/server/files/access';
import { messagesOf } from '$lib/server/applications/message';
import type { Actions, PageServerLoad } from './$types';
import { unknownPath } from '$lib/server/platform/not-found';

/**
 * An admin of this application's programme (issue 59): to anyone else, and to an admin of other
 * programmes only, the unknown path's 404 (pages and actions alike).
 */
async function adminFor(event: Parameters<typeof requireAdmin>[0], id: string) {
	const admin = requireAdmin(event);
	if (admin.programIds && UUID.test(id)) await withDatabase((db) => requireInScope(db, admin, [id]));
	return admin;
}

export const load: PageServerLoad = async ({ locals, url, params }) => {
	await adminFor({ locals, url }, params.id);
	// An id that is not a UUID, or no application: the same 404 as any unknown path.
	if (!UUID.test(params.id)) unknownPath();
	const detail = await withDatabase((db) => applicationDetail(db, params.id));
	if (!detail) unknownPath();
	const votes = await withDatabase(async (db) => {
		const read = await applicationVotes(db, params.id);
		// A vote whose reviewer has left the team (or this programme) stays, marked (issue 59).
		const former = new Set(
			await formerReviewers(
				db,
				runtime().roster,
				read.votes.map((v) => v.reviewerAddress),
				detail.application.programId
			)
		);
		return { ...read, votes: read.votes.map((v) => ({ ...v, formerReviewer: former.has(v.reviewerAddress) })) };
	});
	const reviewing = await withDatabase((db) =>
		reviewersOf(db, runtime().roster, params.id, detail.application.applicantAddress)
	);
	const eligibility = await withDatabase((db) => evidenceOf(db, runtime().chain.polygon, detail.application));
	// Reviewers, admins and note authors by the names they gave when they applied (issue 61).
	const names = await withDatabase((db) =>
		displayNames(db, runtime().chain.ens, [
			...votes.votes.map((v) => v.reviewerAddress),
			...detail.events.map((e) => e.executorAddress),
			...detail.notes.map((n) => n.authorAddress),
			...reviewing.assignments.map((a) => a.reviewerAddress),
			...reviewing.conflicts.map((c) => c.reviewerAddress)
		])
	);
	return {
		...detail,
		names,
		...votes,
		...reviewing,
		quorum: runtime().config.reviewQuorum,
		done: url.searchParams.get('done'),
		// Whether tx hashes are looked up on chain 137, so that an unchecked one reads "not checked", not "unverified".
		txChecks: runtime().config.polygonRpcUrl !== null,
		eligibility,
		// The files of its `file` answers (issue 58), shown with previews.
		files: await withDatabase((db) => filesOf(db, [params.id])),
		// The admins' messages to the applicant about it (issue 59), in its history.
		messages: await withDatabase((db) => messagesOf(db, params.id))
	};
};

export const actions: Actions = {
	// transitionApplication from the application's own page: the admin stays here and is told what happened.
	// A final move waits for confirmation (awaitsConfirmation): the page answers with the confirm step.
	transition: async ({ locals, request, url, params, setHeaders }) => {
		const admin = await adminFor({ locals, url }, params.id);
		const form = await readForm(request);
		const asks = asksInput(form);
		const input = { ...formInput(form, MOVE_FIELDS), applicationId: params.id, asks };
		const parsed = parseSingleMove(input);
		if (parsed.ok && awaitsConfirmation(parsed.value, form)) {
			const { field, to, reason, txHash, from, reapplyAfter } = parsed.value;
			return { confirm: { field, to, reason, txHash, from, reapplyAfter } };
		}
		const outcome = await withDatabase((db) =>
			transitionApplication(db, runtime().outbox, runtime().chain.polygon, admin, input)
		);
		if (!outcome.ok) {
			// The comments typed on answers go back into their boxes, by key.
			const values = typedValues(input);
			return refuse(setHeaders, outcome, { values, asks: typedValues(asks), field: values.field ?? null });
		}
		redirect(
			303,
			localHref(`/admin/applications/${params.id}?done=${outcome.value.event.field}.${outcome.value.event.toState}`)
		);
	},

	// A reviewer note: guard → validate → one insert. Admins only; the applicant never sees it.
	note: async ({ locals, request, url, params, setHeaders }) => {
		const admin = await adminFor({ locals, url }, params.id);
		if (!UUID.test(params.id)) unknownPath();
		const input = formInput(await readForm(request), NOTE_FIELDS);
		const outcome = await withDatabase((db) => addNote(db, runtime().outbox, admin, params.id, input));
		if (!outcome.ok) return refuse(setHeaders, outcome, { values: typedValues(input), field: 'note' });
		redirect(303, localHref(`/admin/applications/${params.id}#notes`));
	},

	// assignReviewer: guard → validate → one transaction (never the applicant nor a conflicted reviewer).
	assign: async ({ locals, request, url, params, setHeaders }) => {
		const admin = await adminFor({ locals, url }, params.id);
		if (!UUID.test(params.id)) unknownPath();
		const input = formInput(await readForm(request), ASSIGN_FIELDS);
		const outcome = await withDatabase((db) => assignReviewer(db, runtime().roster, admin, params.id, input));
		if (!outcome.ok) return refuse(setHeaders, outcome, { values: typedValues(input), field: 'reviewer' });
		redirect(303, localHref(`/admin/applications/${params.id}#reviewers`));
	},

	// unassignReviewer: guard → validate → one delete; nobody replaces the reviewer (the admin chose).
	unassign: async ({ locals, request, url, params, setHeaders }) => {
		await adminFor({ locals, url }, params.id);
		if (!UUID.test(params.id)) unknownPath();
		const input = formInput(await readForm(request), ASSIGN_FIELDS);
		const outcome = await withDatabase((db) => unassignReviewer(db, params.id, input));
		if (!outcome.ok) return refuse(setHeaders, outcome, { values: typedValues(input), field: 'reviewer' });
		redirect(303, localHref(`/admin/applications/${params.id}#reviewers`));
	},

	// checkEligibilityAgain: what the applicant holds now beside the evidence at submission; reads the chain, writes nothing.
	eligibility: async ({ locals, url, params, setHeaders }) => {
		await adminFor({ locals, url }, params.id);
		if (!UUID.test(params.id)) unknownPath();
		const outcome = await withDatabase((db) => checkEligibilityAgain(db, runtime().chain.polygon, params.id));
		if (!outcome.ok) return refuse(setHeaders, outcome, { field: 'eligibility' });
		return { eligibilityNow: outcome.value.now };
	}
};
