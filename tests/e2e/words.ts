// The words a page in a locale says, read from messages/<locale>.json: a journey run in English and in
// Arabic looks for what a person of that language reads (issue 61: the keyboard journeys pass in `ar`).
import { readFileSync } from 'node:fs';

/** The locales the keyboard journeys run in: English, and Arabic written right to left. */
export const JOURNEY_LOCALES = ['en', 'ar'] as const;
export type JourneyLocale = (typeof JOURNEY_LOCALES)[number];

type Message = string | { match?: Record<string, string> }[];
const cache = new Map<string, Record<string, Message>>();
const read = (locale: string) => {
	if (!cache.has(locale))
		cache.set(locale, JSON.parse(readFileSync(`messages/${locale}.json`, 'utf8')) as Record<string, Message>);
	return cache.get(locale)!;
};

/** The words of `locale` for `locale`: what says the message `key` (a plain message, its `{inputs}` filled), and more. */
export function wordsOf(locale: JourneyLocale) {
	const say = (key: string, inputs: Record<string, string> = {}): string => {
		const said = read(locale)[key];
		if (typeof said !== 'string') throw new Error(`${key} is not a plain message in ${locale}`);
		return said.replace(/\{(\w+)\}/g, (_, name: string) => inputs[name] ?? `{${name}}`);
	};
	/** A message that depends on a count, as `count` picks its form in the locale (`{count}` filled with the digits). */
	const plural = (key: string, n: number, inputs: Record<string, string> = {}): string => {
		const said = read(locale)[key];
		const match = Array.isArray(said) ? said[0]?.match : undefined;
		if (!match) throw new Error(`${key} is not a plural message in ${locale}`);
		const category = new Intl.PluralRules(locale).select(n);
		const form = Object.entries(match).find(
			([selector]) => selector.endsWith(`=${category}`) || selector.endsWith('=*')
		);
		if (!form) throw new Error(`${key} has no ${category} form in ${locale}`);
		const all: Record<string, string> = { count: String(n), ...inputs };
		return form[1].replace(/\{(\w+)\}/g, (_, name: string) => all[name] ?? `{${name}}`);
	};
	return {
		locale,
		say,
		plural,
		/** A count as the page writes it (Arabic-Indic digits in `ar`). */
		count: (n: number) => new Intl.NumberFormat(locale).format(n),
		/** A path under the locale's prefix (English has none). */
		path: (path: string) => (locale === 'en' ? path : `/${locale}${path === '/' ? '' : path}`),
		/** The arrow key that moves to the next radio of a group: the left one right to left. */
		next: locale === 'ar' ? 'ArrowLeft' : 'ArrowRight',
		/** A regular expression matching `text` literally. */
		literal: (text: string) => new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
	};
}
