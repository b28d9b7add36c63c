import { getLocale } from '$lib/paraglide/runtime';
import { redirect } from '@sveltejs/kit';
import { requireAdmin } from '$lib/server/auth/guards';
import { formInput, readForm, refuse, typedValues } from '$lib/server/platform/forms';
import { runtime, withDatabase } from '$lib/server/platform/runtime';
import { TEAM_FIELDS, addTeamMember, listTeam, recentTeamEvents, removeTeamMember } from '$lib/server/team/team';
import { TEAM_NAME_FIELDS, setTeamName, teamNamesOf } from '$lib/server/team/names';
import { programChoices } from '$lib/server/programs/choices';
import { displayNames } from '$lib/server/applications/display-names';
import { localHref } from '$lib/i18n/locales';
import type { Actions, PageServerLoad } from './$types';

// The team (issue 59): owners, admins and reviewers, each of every programme or of one; admins only
// (anyone else: the unknown path's 404, as all of /admin).
export const load: PageServerLoad = async ({ locals, url }) => {
	const member = requireAdmin({ locals, url });
	return withDatabase(async (db) => {
		const [team, events, programs, own] = await Promise.all([
			listTeam(db, runtime().roster),
			recentTeamEvents(db),
			programChoices(db, getLocale()),
			teamNamesOf(db, [member.address])
		]);
		const addresses = [
			...new Set([
				...team.flatMap((t) => (t.addedBy ? [t.address, t.addedBy] : [t.address])),
				...events.flatMap((e) => [e.actor, e.address])
			])
		];
		// Each programme named in the page's locale where the community translated its name (issue 61).
		const nameOf = new Map(programs.map((p) => [p.slug, p.name]));
		const named = (slug: string | null, name: string | null) => (slug === null ? name : (nameOf.get(slug) ?? name));
		return {
			team: team.map((t) =>
				t.program ? { ...t, program: { ...t.program, name: named(t.program.slug, t.program.name)! } } : t
			),
			events: events.map((e) => ({ ...e, program: named(e.programSlug, e.program) })),
			names: await displayNames(db, runtime().chain.ens, addresses),
			// The signed-in member's own name on the team, for the name form.
			ownName: own[member.address] ?? '',
			// An admin of some programmes adds reviewers of those only.
			programs: programs
				.filter((p) => !member.programIds || member.programIds.includes(p.id))
				.map((p) => ({ slug: p.slug, name: p.name })),
			everyProgram: !member.programIds,
			limitedToPrograms: !!member.programIds,
			isOwner: member.role === 'owner',
			// Whether an ENS name may be typed for the address (ENS_RPC_URL set).
			ens: runtime().chain.ens !== null,
			done: url.searchParams.get('done')
		};
	});
};

export const actions: Actions = {
	// addTeamMember: guard → limit → fields → who may → one insert and its team_events row in one transaction.
	add: async ({ locals, request, url, setHeaders }) => {
		const actor = requireAdmin({ locals, url });
		const input = formInput(await readForm(request), TEAM_FIELDS);
		const outcome = await withDatabase((db) => addTeamMember(db, runtime().chain.ens, actor, input));
		if (!outcome.ok) return refuse(setHeaders, outcome, { values: typedValues(input), action: 'add' });
		redirect(303, localHref(`/admin/team?done=${outcome.value.added ? 'added' : 'unchanged'}`));
	},
	// removeTeamMember: never the configuration's, never the last owner; a reviewer's votes stay.
	remove: async ({ locals, request, url, setHeaders }) => {
		const actor = requireAdmin({ locals, url });
		const input = formInput(await readForm(request), TEAM_FIELDS);
		const outcome = await withDatabase((db) => removeTeamMember(db, runtime().roster, actor, input));
		if (!outcome.ok) return refuse(setHeaders, outcome, { values: typedValues(input), action: 'remove' });
		redirect(303, localHref('/admin/team?done=removed'));
	},
	// setTeamName: a display name (1–80, plain text), one's own or, for an owner or admin, a team member's; empty clears.
	name: async ({ locals, request, url, setHeaders }) => {
		const actor = requireAdmin({ locals, url });
		const input = formInput(await readForm(request), TEAM_NAME_FIELDS);
		const outcome = await withDatabase((db) => setTeamName(db, runtime().roster, actor, input));
		if (!outcome.ok) return refuse(setHeaders, outcome, { values: typedValues(input), action: 'name' });
		redirect(303, localHref(`/admin/team?done=${outcome.value.displayName === null ? 'name-cleared' : 'named'}`));
	}
};
