import { TRANSLATION_LOCALES, type QuestionTranslation, type TranslationLocale, type Translations } from './questions';

/**
 * The editors' fields for a question's or a criterion's translations (docs/translations.md): `<prefix>.<i>.translations.<locale>.label|help|options`, text as typed (options one a line).
 */
export interface DraftTranslation {
	label: string;
	help: string;
	/** One option a line, in the order of the originals. */
	options: string;
}
export type DraftTranslations = Record<TranslationLocale, DraftTranslation>;

export const TRANSLATION_PARTS = ['label', 'help', 'options'] as const;
export type TranslationPart = (typeof TRANSLATION_PARTS)[number];

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');
/** `translations.<locale>.<part>` after an item's `<prefix>.<i>.`: the locale and part, or null. */
const FIELD = new RegExp(`^translations\\.(${TRANSLATION_LOCALES.map(escape).join('|')})\\.(label|help|options)$`);
export function translationField(rest: string): { locale: TranslationLocale; part: TranslationPart } | null {
	const match = FIELD.exec(rest);
	return match ? { locale: match[1] as TranslationLocale, part: match[2] as TranslationPart } : null;
}

export const blankTranslations = (): DraftTranslations =>
	Object.fromEntries(TRANSLATION_LOCALES.map((l) => [l, { label: '', help: '', options: '' }])) as DraftTranslations;

/** The stored translations as the editor's fields. */
export function draftTranslationsOf(t: Translations<QuestionTranslation> | undefined): DraftTranslations {
	const draft = blankTranslations();
	for (const locale of TRANSLATION_LOCALES) {
		const entry = t?.[locale];
		if (entry)
			draft[locale] = { label: entry.label ?? '', help: entry.help ?? '', options: (entry.options ?? []).join('\n') };
	}
	return draft;
}

export const lines = (s: string) =>
	s
		.split(/\r\n?|\n/)
		.map((o) => o.trim())
		.filter(Boolean);

/** The fields as the schema reads them (`options` only `withOptions`; empty parts are dropped by the schema). */
export function translationsCandidate(
	draft: DraftTranslations | undefined,
	withOptions: boolean
): Record<string, unknown> | undefined {
	if (!draft) return undefined;
	return Object.fromEntries(
		TRANSLATION_LOCALES.map((l) => {
			const d = draft[l] ?? { label: '', help: '', options: '' };
			const options = withOptions ? lines(d.options) : [];
			return [l, { label: d.label, help: d.help, ...(options.length ? { options } : {}) }];
		})
	);
}

/** How many locales have some translation in the fields (the disclosure's summary says it). */
export const translatedCount = (draft: DraftTranslations | undefined) =>
	TRANSLATION_LOCALES.filter((l) => {
		const d = draft?.[l];
		return !!d && !!(d.label.trim() || d.help.trim() || d.options.trim());
	}).length;
