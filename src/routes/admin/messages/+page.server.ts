import { redirect } from '@sveltejs/kit';
import { requireWholeAdmin } from '$lib/server/auth/guards';
import { formInput, readForm, refuse, typedValues } from '$lib/server/platform/forms';
import { withDatabase } from '$lib/server/platform/runtime';
import {
	MESSAGE_EVENTS,
	TEMPLATE_FIELDS,
	defaultTemplate,
	parseKey,
	parseTemplate,
	resetTemplate,
	saveTemplate,
	savedTemplates,
	type MessageEvent
} from '$lib/server/notifications/templates';
import { asksInWords, dayInWords } from '$lib/server/notifications/notification-text';
import { programChoices } from '$lib/server/programs/choices';
import { baseLocale, isLocale, localHref, locales, type Locale } from '$lib/i18n/locales';
import { m } from '$lib/paraglide/messages';
import type { Actions, PageServerLoad } from './$types';

const isEvent = (value: string | null): value is MessageEvent =>
	value !== null && (MESSAGE_EVENTS as readonly string[]).includes(value);

/** The events the portal writes no notification for yet (their templates wait for it). */
const NOT_SENT_YET: readonly MessageEvent[] = ['decisions.released'];

// Every event × locale, the chosen one in the editor with its preview's sample values (admins only).
export const load: PageServerLoad = async ({ locals, url }) => {
	requireWholeAdmin({ locals, url });
	const eventParam = url.searchParams.get('event');
	const localeParam = url.searchParams.get('locale');
	const event: MessageEvent = isEvent(eventParam) ? eventParam : MESSAGE_EVENTS[0];
	const locale: Locale = isLocale(localeParam) ? localeParam : baseLocale;
	// The preview's programme: the first (membership, named after the community), in the template's language
	// where the community translated its name (issue 61).
	const [saved, programs] = await withDatabase((db) => Promise.all([savedTemplates(db), programChoices(db, locale)]));
	const savedOf = (e: MessageEvent, l: Locale) => saved.find((t) => t.event === e && t.locale === l) ?? null;
	const current = savedOf(event, locale);
	const o = { locale };
	return {
		events: MESSAGE_EVENTS.map((e) => ({ event: e, saved: locales.map((l) => savedOf(e, l) !== null) })),
		locales,
		event,
		locale,
		notSentYet: NOT_SENT_YET.includes(event),
		template: current ?? { ...defaultTemplate(event, locale), updatedAt: '', updatedBy: null },
		isDefault: current === null,
		// What the preview fills the placeholders with, in the template's language.
		samples: {
			name: m.messages_sample_name({}, o),
			reason: m.messages_sample_reason({}, o),
			round: m.messages_sample_round({}, o),
			program: programs[0]?.name ?? '',
			asks: asksInWords(
				{ asks: [{ key: 'motivation', label: '', comment: m.messages_sample_reason({}, o) }] },
				locale
			).join(' '),
			reapplyAfter: dayInWords(new Date(Date.UTC(new Date().getUTCFullYear() + 1, 2, 3)), locale)
		},
		done: url.searchParams.get('done')
	};
};

const back = (event: string, locale: string, done: string) =>
	localHref(`/admin/messages?${new URLSearchParams({ event, locale, done })}#editor`);

export const actions: Actions = {
	// saveTemplate: guard → validate (placeholders by name, links http(s)) → one statement; a save made
	// since the editor opened (its `version`) is not overwritten: the later save is told (409).
	save: async ({ locals, request, url, setHeaders }) => {
		const admin = requireWholeAdmin({ locals, url });
		const input = formInput(await readForm(request), TEMPLATE_FIELDS);
		const values = typedValues(input);
		const parsed = parseTemplate(input);
		if (!parsed.ok) return refuse(setHeaders, parsed, { values, action: 'save' as const });
		const outcome = await withDatabase((db) => saveTemplate(db, admin.address, parsed.value));
		if (!outcome.ok) return refuse(setHeaders, outcome, { values, action: 'save' as const });
		redirect(303, back(parsed.value.event, parsed.value.locale, 'saved'));
	},
	// The preview of what was typed, without JavaScript: nothing is written.
	preview: async ({ locals, request, url, setHeaders }) => {
		requireWholeAdmin({ locals, url });
		const input = formInput(await readForm(request), TEMPLATE_FIELDS);
		const values = typedValues(input);
		const parsed = parseTemplate(input);
		if (!parsed.ok) return refuse(setHeaders, parsed, { values, action: 'preview' as const });
		return { values, action: 'preview' as const };
	},
	// Back to the portal's own words: the saved template is deleted.
	reset: async ({ locals, request, url, setHeaders }) => {
		requireWholeAdmin({ locals, url });
		const input = formInput(await readForm(request), ['event', 'locale']);
		const parsed = parseKey(input);
		if (!parsed.ok) return refuse(setHeaders, parsed, { values: typedValues(input), action: 'reset' as const });
		await withDatabase((db) => resetTemplate(db, parsed.value));
		redirect(303, back(parsed.value.event, parsed.value.locale, 'reset'));
	}
};
