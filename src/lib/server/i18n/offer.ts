import type { Cookies } from '@sveltejs/kit';
import { m } from '$lib/paraglide/messages';
import { LOCALE_NAMES, type Locale } from '$lib/i18n/locales';
import { preferredLocale } from '$lib/i18n/preferred';
import { LOCALE_CHOSEN_COOKIE, LOCALE_CHOSEN_MAX_AGE, type LocaleOfferData } from '$lib/i18n/offer';

/** Accept-Language's tags, most wanted first (by q, then by order); `q=0` means not wanted. */
export function acceptedLanguages(header: string | null): string[] {
	if (!header) return [];
	return header
		.split(',')
		.slice(0, 32)
		.map((part, index) => {
			const [tag = '', ...params] = part.trim().split(';');
			const q = params.map((p) => /^\s*q\s*=\s*([\d.]+)\s*$/i.exec(p)?.[1]).find((v) => v !== undefined);
			const weight = q === undefined ? 1 : Number(q);
			return { tag: tag.trim(), weight: Number.isFinite(weight) ? weight : 0, index };
		})
		.filter((entry) => entry.tag && entry.tag !== '*' && entry.weight > 0)
		.sort((a, b) => b.weight - a.weight || a.index - b.index)
		.map((entry) => entry.tag);
}

const cookieOptions = (secure: boolean) =>
	({ path: '/', maxAge: LOCALE_CHOSEN_MAX_AGE, sameSite: 'lax', httpOnly: false, secure }) as const;

/** Remembers that the visitor chose (or said no): nobody offers another locale again. */
export function rememberLocaleChosen(cookies: Cookies, url: URL): void {
	cookies.set(LOCALE_CHOSEN_COOKIE, '1', cookieOptions(url.protocol === 'https:'));
}

/** The locale to offer on a page in `current`: the browser's preferred one, unless the visitor chose already. */
export function localeOffer(request: Request, cookies: Cookies, current: Locale): LocaleOfferData | null {
	if (cookies.get(LOCALE_CHOSEN_COOKIE) !== undefined) return null;
	const wanted = preferredLocale(acceptedLanguages(request.headers.get('accept-language')));
	if (!wanted || wanted === current) return null;
	const language = LOCALE_NAMES[wanted];
	return {
		locale: wanted,
		words: {
			label: m.locale_switcher_label({}, { locale: wanted }),
			offer: m.locale_offer({ language }, { locale: wanted }),
			switch: m.locale_offer_switch({ language }, { locale: wanted }),
			dismiss: m.locale_offer_dismiss({}, { locale: wanted })
		}
	};
}
