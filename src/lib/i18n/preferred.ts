import { locales, type Locale } from './locales';

/**
 * The first of a browser's languages (navigator.languages, most wanted first) the portal speaks, or null:
 * `es-MX` is `es`, any Portuguese `pt-BR`, Chinese in simplified script `zh-Hans` (not `zh-TW`, `zh-HK`
 * or `zh-Hant`), any Arabic `ar`.
 */
export function preferredLocale(languages: readonly string[]): Locale | null {
	for (const tag of languages) {
		const lower = tag.toLowerCase();
		const [language] = lower.split('-');
		if (language === 'zh') {
			if (/^zh(?:-hans(?:-|$)|-cn$|-sg$|-my$|$)/.test(lower)) return 'zh-Hans';
			continue;
		}
		if (language === 'pt') return 'pt-BR';
		const found = locales.find((locale) => locale.toLowerCase() === language);
		if (found) return found;
	}
	return null;
}
