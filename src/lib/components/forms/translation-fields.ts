import { TRANSLATION_LOCALES, languageName, type TranslationLocale } from '$lib/forms/questions';
import { editor_translation_help } from '$lib/paraglide/messages/editor_translation_help.js';
import { editor_translation_label } from '$lib/paraglide/messages/editor_translation_label.js';
import { editor_translation_options } from '$lib/paraglide/messages/editor_translation_options.js';

const PART_LABELS = {
	label: editor_translation_label,
	help: editor_translation_help,
	options: editor_translation_options
};

/**
 * The name an error summary gives a field of TranslationFields.svelte, from its name's parts after the
 * question's or criterion's index (`translations`, the locale, the part): "Label in Español" (the label the
 * field shows); undefined for another name.
 */
export function translationFieldLabel([field, locale, part, ...rest]: string[]): string | undefined {
	if (field !== 'translations' || rest.length || !part || !Object.hasOwn(PART_LABELS, part)) return undefined;
	const known = TRANSLATION_LOCALES.find((l: TranslationLocale) => l === locale);
	if (!known) return undefined;
	return PART_LABELS[part as keyof typeof PART_LABELS]({ language: languageName(known) });
}
