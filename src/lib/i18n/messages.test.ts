// Every message in every locale (docs/decisions/0043-translations-by-url-prefix.md): the same keys, the same
// inputs, and no locale left in English.
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { baseLocale, locales } from '$lib/paraglide/runtime';

type Variant = { declarations?: string[]; selectors?: string[]; match?: Record<string, string> };
type Message = string | Variant[];

const read = (locale: string): Record<string, Message> => {
	const { $schema: _schema, ...messages } = JSON.parse(readFileSync(`messages/${locale}.json`, 'utf8')) as Record<
		string,
		Message
	>;
	return messages;
};
const all = Object.fromEntries(locales.map((locale) => [locale, read(locale)]));
const base = all[baseLocale]!;

/** The `{inputs}` a message uses, across its variants. */
function inputsOf(message: Message): string[] {
	const texts = typeof message === 'string' ? [message] : message.flatMap((v) => Object.values(v.match ?? {}));
	const found = new Set<string>();
	for (const text of texts) for (const [, name] of text.matchAll(/\{(\w+)\}/g)) found.add(name!);
	if (typeof message !== 'string')
		for (const variant of message)
			for (const declaration of variant.declarations ?? []) {
				const input = /^input (\w+)$/.exec(declaration);
				if (input) found.add(input[1]!);
			}
	return [...found].sort();
}

const textsOf = (message: Message) =>
	typeof message === 'string' ? [message] : message.flatMap((v) => Object.values(v.match ?? {}));

/**
 * Words the same in every language: names, and what a person types or sees as data. A message made only
 * of these may read the same as in English.
 */
const SAME_IN_EVERY_LANGUAGE =
	/^(?:[\s\p{P}\p{S}\d]|\{\w+\}|MetaMask|WalletConnect|Safe\{Wallet\}|Safe|Polygon|Ethereum|GitHub|CSV|JSON|URL|POL|MATIC|ID|OK|Webhooks?|min|h|d|NFTs?|tokens|English|Español|Português \(Brasil\)|简体中文|العربية|https?:\/\/\S+|0x[0-9a-fA-F…]+)*$/u;

/** Messages that read as in English in one locale, with the reason. */
const SAME_AS_ENGLISH: Record<string, string> = {
	// "tokens" and "NFT(s)" are the words Spanish and Brazilian crypto communities use (SAME_IN_EVERY_LANGUAGE).
	'pt-BR insights_checkins': '"Check-ins" is the Brazilian word for them.',
	'es form_answer_no': '"No" is Spanish for no.',
	'es admin_no': '"no" is Spanish for no.',
	'pt-BR admin_channel_email': '"E-mail" is the Brazilian word for it.',
	'pt-BR apply_status_label': '"Status" is the Brazilian word for it.',
	'pt-BR question_type_url': '"Link" is the Brazilian word for it.'
};

describe('messages', () => {
	it('the base locale has messages', () => {
		expect(Object.keys(base).length).toBeGreaterThan(0);
	});

	it.each(locales.filter((l) => l !== baseLocale))('%s has every key of the base locale, and no other', (locale) => {
		const keys = Object.keys(all[locale]!);
		expect(Object.keys(base).filter((key) => !keys.includes(key))).toEqual([]);
		expect(keys.filter((key) => !(key in base))).toEqual([]);
	});

	it.each(locales)('%s: every message is written and uses the inputs the English one does', (locale) => {
		const problems: string[] = [];
		for (const [key, message] of Object.entries(all[locale]!)) {
			if (textsOf(message).some((text) => text.trim() === '')) problems.push(`${key}: empty`);
			const english = base[key];
			if (english !== undefined && inputsOf(message).join() !== inputsOf(english).join())
				problems.push(`${key}: inputs ${inputsOf(message).join()} where English has ${inputsOf(english).join()}`);
		}
		expect(problems).toEqual([]);
	});

	it.each(locales.filter((l) => l !== baseLocale))('%s: no message is left in English', (locale) => {
		const untranslated = Object.entries(all[locale]!)
			.filter(([key, message]) => JSON.stringify(message) === JSON.stringify(base[key]))
			.filter(([, message]) => textsOf(message).some((text) => !SAME_IN_EVERY_LANGUAGE.test(text)))
			.filter(([key]) => SAME_AS_ENGLISH[`${locale} ${key}`] === undefined)
			.map(([key]) => key);
		expect(untranslated).toEqual([]);
	});

	// Issue 61: an admin (or an applicant) reads what is missing in words; a setting's variable name is only the
	// detail for whoever runs the portal, after the locale's word for "setting" ("a connection to Polygon (setting
	// POLYGON_RPC_URL)"), never the message's subject ("POLYGON_RPC_URL is not set"), and never in an applicant's words.
	const SETTING_WORD: Record<string, RegExp> = {
		en: /settings? $/,
		es: /variables? $/,
		'pt-BR': /variáve(?:l|is) $/,
		'zh-Hans': /设置项 ?$/,
		ar: /الإعداد(?:ين)? $/
	};
	const VARIABLE = /[A-Z][A-Z0-9]*_[A-Z0-9_]+|\{(?:variable|setting|urls|secret)\}/g;
	it.each(locales)('%s: a setting\'s variable name comes only as a detail, after the word for "setting"', (locale) => {
		const word = SETTING_WORD[locale];
		expect(word, `the word for "setting" in ${locale}`).toBeDefined();
		const bare: string[] = [];
		for (const [key, message] of Object.entries(all[locale]!))
			for (const text of textsOf(message))
				for (const found of text.matchAll(VARIABLE)) {
					const applicantReads = /^(?:application_unavailable_|apply_|signin_|checkin_)/.test(key);
					const before = text.slice(0, found.index);
					// The second of a pair ("the settings {urls} and {secret}") follows the first.
					const second = /(?:\{\w+\}|[A-Z][A-Z0-9_]+) ?(?:and|y|e|和|و) ?$/.test(before);
					if (applicantReads || !(word!.test(before) || second)) bare.push(`${key}: ${found[0]}`);
				}
		expect(bare).toEqual([]);
	});

	it('no key is written twice in a file (JSON keeps the last, so a merge could silently drop a message)', () => {
		for (const locale of locales) {
			const keys = [...readFileSync(`messages/${locale}.json`, 'utf8').matchAll(/^\t"([^"]+)":/gm)].map((k) => k[1]);
			expect(
				keys.filter((k, i) => keys.indexOf(k) !== i),
				locale
			).toEqual([]);
		}
	});

	it('keys are snake_case', () => {
		expect(Object.keys(base).filter((key) => !/^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/.test(key))).toEqual([]);
	});

	it('every locale file is one of the project', () => {
		const files = readdirSync('messages').filter((f) => f.endsWith('.json'));
		expect(files.map((f) => f.replace(/\.json$/, '')).sort()).toEqual([...locales].sort());
	});
});
