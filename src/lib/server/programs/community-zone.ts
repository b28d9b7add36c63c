import { getLocale, type Locale } from '$lib/paraglide/runtime';
import { m } from '$lib/paraglide/messages';
import { roundTimeText as timeText } from '$lib/programs/round-time';

// The community's time zone (COMMUNITY_TIME_ZONE, validated by the configuration) is passed in by each
// route from runtime().config: no module holds it.

/** A round's time in the request's language (or `locale`), in the community's zone, named. */
export const roundTimeText = (at: Date, zone: string, locale: Locale = getLocale()) => timeText(at, zone, locale);

/** What a new application to a programme without an open round is told: that, and when the next round opens. */
export const roundClosedNotice = (next: { opensAt: Date } | null, zone: string) =>
	next ? m.application_round_closed_next({ when: roundTimeText(next.opensAt, zone) }) : m.application_round_closed();
