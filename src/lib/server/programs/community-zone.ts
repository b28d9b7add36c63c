import { singleton } from '$lib/platform/singleton';
import { getLocale, type Locale } from '$lib/paraglide/runtime';
import { m } from '$lib/paraglide/messages';

// COMMUNITY_TIME_ZONE, set once at start-up (startRuntime); validated by the configuration.
const zone = singleton<string>('community time zone', () => 'UTC');
export const setCommunityTimeZone = (name: string) => zone.set(name);
export const communityTimeZone = () => zone.get();

/** A round's time as people read it: date and time in the reader's language, in the community's zone, named. */
export const roundTimeText = (at: Date, locale: Locale = getLocale()) =>
	new Intl.DateTimeFormat(locale === 'en' ? 'en-GB' : locale, {
		dateStyle: 'long',
		timeStyle: 'short',
		timeZone: communityTimeZone()
	}).format(at) + ` (${communityTimeZone()})`;

/** What a new application to a programme without an open round is told: that, and when the next round opens. */
export const roundClosedNotice = (next: { opensAt: Date } | null) =>
	next ? m.application_round_closed_next({ when: roundTimeText(next.opensAt) }) : m.application_round_closed();
