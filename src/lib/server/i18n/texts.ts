import { m } from '$lib/paraglide/messages';
import type { Texts } from '$lib/i18n/texts';

type Messages = typeof m;
/** The messages that take no inputs. */
type Plain = { [K in keyof Messages]: undefined extends Parameters<Messages[K]>[0] ? K : never }[keyof Messages];

/**
 * The messages `keys` names, rendered in the request's locale (a page's data sends them to the browser,
 * src/lib/i18n/texts.ts).
 */
export function textsOf<const K extends Plain>(keys: readonly K[]): Texts<K> {
	return Object.fromEntries(keys.map((key) => [key, m[key]()])) as unknown as Texts<K>;
}
