import { getLocale } from '$lib/paraglide/runtime';
import { m } from '$lib/paraglide/messages';

/** The counts whose words are kept: five locales of a thousand counts at most, a few hundred kB at worst. */
const KEPT_UP_TO = 1000;
const said = new Map<string, string>();

/**
 * The header's unread count in words ("3 unread"), in the request's locale: drawn on every signed-in page
 * (src/routes/+layout.server.ts). The message is a plural, and Paraglide's generated `plural` builds an
 * `Intl.PluralRules` on every call: in the mixed-traffic soak's profile, 0.08-0.2 ms of each signed-in page, the
 * layout's largest cost (bench/README.md, issue 60). The words of a count do not change while the process runs,
 * so each is made once per locale.
 */
export function unreadText(count: number): string {
	const key = `${getLocale()} ${count}`;
	let text = said.get(key);
	if (text === undefined) {
		text = m.layout_unread({ count });
		if (Number.isInteger(count) && count > 0 && count <= KEPT_UP_TO) said.set(key, text);
	}
	return text;
}
