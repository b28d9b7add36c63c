import { m } from '$lib/paraglide/messages';
import { getLocale } from '$lib/paraglide/runtime';
import type { Texts } from '$lib/i18n/texts';

type Messages = typeof m;
/** The messages that take no inputs. */
type Plain = { [K in keyof Messages]: undefined extends Parameters<Messages[K]>[0] ? K : never }[keyof Messages];

type Made = Map<string, Readonly<Record<string, string>>>;
/** Each list's words by locale, made once: the messages without inputs are fixed per locale. */
const made = new WeakMap<readonly string[], Made>();

/**
 * The messages `keys` names, rendered in the request's locale (a page's data sends them to the browser,
 * src/lib/i18n/texts.ts). Made once per list and locale: the layout's seventeen were rendered again on
 * every page.
 */
export function textsOf<const K extends Plain>(keys: readonly K[]): Texts<K> {
	const locale = getLocale();
	let byLocale = made.get(keys);
	if (!byLocale) made.set(keys, (byLocale = new Map() as Made));
	let texts = byLocale.get(locale);
	if (!texts) byLocale.set(locale, (texts = Object.freeze(Object.fromEntries(keys.map((key) => [key, m[key]()])))));
	return texts;
}
