import { redirect } from '@sveltejs/kit';
import { requireWholeAdmin } from '$lib/server/auth/guards';
import { formInput, readForm, refuse, typedValues } from '$lib/server/platform/forms';
import { runtime, withDatabase } from '$lib/server/platform/runtime';
import {
	ARCHIVE_FIELDS,
	PROGRAM_FIELDS,
	ROUND_FIELDS,
	TRANSLATED_LOCALES,
	adminPrograms,
	archiveProgram,
	saveProgram,
	saveRound,
	timeFieldText
} from '$lib/server/programs/admin';
import { roundTimeText } from '$lib/server/programs/community-zone';
import { localHref } from '$lib/i18n/locales';
import { releaseRound, stagedCounts } from '$lib/server/programs/release';
import { invalid } from '$lib/server/platform/outcome';
import { m } from '$lib/paraglide/messages';
import type { Actions, PageServerLoad } from './$types';

// Programmes and their rounds (issue 57); admins only. ?edit=<slug> fills the programme form with that
// programme, ?round=<id> the round form with that round, ?add=<slug> picks the programme of a new round.
export const load: PageServerLoad = async ({ locals, url }) => {
	requireWholeAdmin({ locals, url });
	const list = await withDatabase((db) => adminPrograms(db));
	// What each together round not yet released holds back: its staged decisions and who will be told.
	const staged = new Map(
		await withDatabase((db) =>
			Promise.all(
				list
					.flatMap((p) => p.rounds)
					.filter((r) => r.releaseMode === 'together' && !r.releasedAt)
					.map(async (r) => [r.id, await stagedCounts(db, r.id)] as const)
			)
		)
	);
	const zone = runtime().config.communityTimeZone;
	const editSlug = url.searchParams.get('edit');
	const roundId = url.searchParams.get('round');
	const editing = list.find((p) => p.slug === editSlug && !p.archivedAt) ?? null;
	const round = list
		.flatMap((p) => (p.archivedAt ? [] : p.rounds.map((r) => ({ ...r, program: p.slug }))))
		.find((r) => String(r.id) === roundId);
	const addTo = list.find((p) => p.slug === url.searchParams.get('add') && !p.archivedAt)?.slug ?? null;
	return {
		zone,
		translatedLocales: TRANSLATED_LOCALES,
		programs: list.map((p) => ({
			...p,
			rounds: p.rounds.map((r) => ({
				...r,
				opensText: roundTimeText(r.opensAt, zone),
				closesText: r.closesAt ? roundTimeText(r.closesAt, zone) : null,
				releaseAtText: r.releaseAt ? roundTimeText(r.releaseAt, zone) : null,
				releasedText: r.releasedAt ? roundTimeText(r.releasedAt, zone) : null,
				staged: staged.get(r.id) ?? null
			}))
		})),
		editing: editing && {
			slug: editing.slug,
			name: editing.name,
			description: editing.description,
			translations: editing.translations
		},
		round: round
			? {
					id: round.id,
					program: round.program,
					name: round.name,
					opensAt: timeFieldText(round.opensAt, zone),
					closesAt: round.closesAt ? timeFieldText(round.closesAt, zone) : '',
					releaseMode: round.releaseMode,
					releaseAt: round.releaseAt ? timeFieldText(round.releaseAt, zone) : ''
				}
			: null,
		addTo,
		done: url.searchParams.get('done')
	};
};

export const actions: Actions = {
	// saveProgram: guard → validate → one statement (a new programme, or the one with this slug edited).
	save: async ({ locals, request, url, setHeaders }) => {
		requireWholeAdmin({ locals, url });
		const input = formInput(await readForm(request), PROGRAM_FIELDS);
		const outcome = await withDatabase((db) => saveProgram(db, input));
		if (!outcome.ok) return refuse(setHeaders, outcome, { values: typedValues(input), action: 'save' });
		redirect(303, localHref('/admin/programs?done=saved'));
	},
	// archiveProgram: refused (409, with the count) while it has live applications; one transaction.
	archive: async ({ locals, request, url, setHeaders }) => {
		requireWholeAdmin({ locals, url });
		const input = formInput(await readForm(request), ARCHIVE_FIELDS);
		const outcome = await withDatabase((db) => archiveProgram(db, input));
		if (!outcome.ok) return refuse(setHeaders, outcome, { values: typedValues(input), action: 'archive' });
		redirect(303, localHref('/admin/programs?done=archived'));
	},
	// saveRound: guard → validate → one transaction, the programme's row locked, no overlapping round.
	// A switch from together to immediate releases what the round held (the page says so, as Release does).
	round: async ({ locals, request, url, setHeaders }) => {
		const admin = requireWholeAdmin({ locals, url });
		const input = formInput(await readForm(request), ROUND_FIELDS);
		const outcome = await withDatabase((db) => saveRound(db, input, runtime().config.communityTimeZone, admin.address));
		if (!outcome.ok) return refuse(setHeaders, outcome, { values: typedValues(input), action: 'round' });
		redirect(303, localHref(`/admin/programs?done=${outcome.value.released ? 'released' : 'round'}`));
	},
	// releaseRound: one conditional UPDATE (released once, whoever is first) and the held rows let go in
	// its transaction; the outbox then sends each message once.
	release: async ({ locals, request, url, setHeaders }) => {
		const admin = requireWholeAdmin({ locals, url });
		const input = formInput(await readForm(request), RELEASE_FIELDS);
		const id = typeof input.round === 'string' && /^[1-9]\d{0,9}$/.test(input.round) ? Number(input.round) : 0;
		const outcome =
			id > 0 && id <= 2 ** 31 - 1
				? await withDatabase((db) => releaseRound(db, id, admin.address))
				: invalid({ round: m.round_unknown() });
		if (!outcome.ok) return refuse(setHeaders, outcome, { values: typedValues(input), action: 'release' });
		redirect(303, localHref('/admin/programs?done=released'));
	}
};

const RELEASE_FIELDS = ['round'] as const;
