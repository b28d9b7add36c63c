import { redirect } from '@sveltejs/kit';
import { DEFAULT_BRANDING } from '$lib/branding/branding';
import { community } from '$lib/branding/community';
import { m } from '$lib/paraglide/messages';
import { requireWholeAdmin } from '$lib/server/auth/guards';
import {
	OTHER_LOCALES,
	SETTINGS_FIELDS,
	recentSettingsEvents,
	saveCommunity,
	savedCommunity
} from '$lib/server/branding/settings';
import { formInput, readForm, refuse, typedValues } from '$lib/server/platform/forms';
import { runtime, withDatabase } from '$lib/server/platform/runtime';
import { displayNames } from '$lib/server/applications/display-names';
import { localHref } from '$lib/i18n/locales';
import type { Actions, PageServerLoad } from './$types';

// The community's look (issue 59): name, description, links, accent and logo, the texts per locale. Admins
// of every programme only (anyone else: the unknown path's 404, as all of /admin).
export const load: PageServerLoad = async (event) => {
	requireWholeAdmin(event);
	return withDatabase(async (db) => {
		const [saved, events] = await Promise.all([savedCommunity(db, { fresh: true }), recentSettingsEvents(db)]);
		return {
			// What the form shows: the saved value, else the configuration's (shown beside each field).
			saved: {
				name: saved?.name ?? '',
				description: saved?.description ?? '',
				links: (saved?.links ?? community.links).map((l) => `${l.label} | ${l.href}`).join('\n'),
				accent: saved?.accent ?? community.accent,
				translations: Object.fromEntries(
					OTHER_LOCALES.map((locale) => [
						locale,
						{
							name: saved?.translations[locale]?.name ?? '',
							description: saved?.translations[locale]?.description ?? ''
						}
					])
				),
				logoSha256: saved?.logoSha256 ?? null
			},
			defaults: {
				name: community.name,
				// The portal's own description, as the pages show it (server/branding/current.ts): in the page's language.
				description:
					community.description === DEFAULT_BRANDING.description
						? m.community_default_description()
						: community.description,
				accent: community.accent
			},
			locales: OTHER_LOCALES,
			events,
			names: await displayNames(db, runtime().chain.ens, [...new Set(events.map((e) => e.actor))]),
			done: event.url.searchParams.get('done')
		};
	});
};

export const actions: Actions = {
	// saveCommunity: guard → limit → every field checked (the logo's bytes too) → one row and its event.
	save: async ({ locals, request, url, route, setHeaders }) => {
		const actor = requireWholeAdmin({ locals, url, route });
		const form = await readForm(request);
		const input = formInput(form, SETTINGS_FIELDS);
		const outcome = await withDatabase((db) => saveCommunity(db, actor, form, input));
		if (!outcome.ok) return refuse(setHeaders, outcome, { values: typedValues(input) });
		redirect(303, localHref(`/admin/settings?done=${outcome.value.changed.length ? 'saved' : 'unchanged'}`));
	}
};
