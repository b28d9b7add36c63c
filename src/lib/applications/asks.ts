/**
 * Requests for changes on single answers (`ask.<key>` on a needs_info move) and the date from which a
 * rejected applicant may apply again (`reapplyAfter`): names, limits and checks shared by the server,
 * which refuses with them (400), and the pages (docs/review-guide.md).
 */
import { LENGTHS } from '$lib/platform/limits';
import { KEY } from '$lib/forms/questions';
import { application_reapply_label } from '$lib/paraglide/messages/application_reapply_label.js';
import { application_reapply_not_a_date } from '$lib/paraglide/messages/application_reapply_not_a_date.js';
import { application_reapply_out_of_range } from '$lib/paraglide/messages/application_reapply_out_of_range.js';
import { field_contact } from '$lib/paraglide/messages/field_contact.js';
import { field_display_name } from '$lib/paraglide/messages/field_display_name.js';
import { field_motivation } from '$lib/paraglide/messages/field_motivation.js';
import { getLocale, type Locale } from '$lib/paraglide/runtime';

export const ASK_PREFIX = 'ask.';
export const askField = (key: string) => `${ASK_PREFIX}${key}`;

/** The built-in fields every application has, by key, as the pages label them (in the page's locale, read when used). */
export const BUILT_IN_FIELDS: { readonly displayName: string; readonly motivation: string; readonly contact: string } =
	{
		get displayName() {
			return field_display_name();
		},
		get motivation() {
			return field_motivation();
		},
		get contact() {
			return field_contact();
		}
	};
export const isBuiltIn = (key: string): key is keyof typeof BUILT_IN_FIELDS => Object.hasOwn(BUILT_IN_FIELDS, key);

/** A key an ask may name at all: a built-in field or the shape of a question key (the form decides the rest). */
export const isAskKey = (key: string) => isBuiltIn(key) || KEY.test(key);

/** The id of an answer's field on /apply, which the asks at the top of the form link to. */
export const fieldId = (key: string) => (isBuiltIn(key) ? `field-${key}` : `field-answer-${key}`);

/** The id of an answer's comment box ("Ask about this") beside it on /review/[id] and the admin's page (one a page). */
export const askBoxId = (key: string) => `ask-${key}`;

export const ASK_MAX = LENGTHS.ask.max;

/** A comment on one answer, asked of the applicant or suggested by a reviewer. */
export type Asks = Record<string, string>;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 86_400_000;
/** The furthest a rejection may put off a new application, in days. */
export const REAPPLY_MAX_DAYS = 365;

/** A UTC day as `YYYY-MM-DD`. */
export const isoDay = (d: Date) => d.toISOString().slice(0, 10);

/** The dates a rejection may name (tomorrow to 365 days ahead, UTC), for a date field's min and max. */
export function reapplyWindow(now: Date): { min: string; max: string } {
	const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
	return { min: isoDay(new Date(today + DAY_MS)), max: isoDay(new Date(today + REAPPLY_MAX_DAYS * DAY_MS)) };
}

/** `reapplyAfter` as sent: the start of that day (UTC), or why it is refused. '' is none. */
export function parseReapplyAfter(sent: string, now: Date): { value: Date | null } | { error: string } {
	if (sent === '') return { value: null };
	const parts = DATE.exec(sent);
	const day = parts ? new Date(Date.UTC(Number(parts[1]), Number(parts[2]) - 1, Number(parts[3]))) : null;
	// Date.UTC rolls 2026-02-30 over to March: only a date that reads back the same is one.
	const label = application_reapply_label();
	if (!day || isoDay(day) !== sent) return { error: application_reapply_not_a_date({ label }) };
	const { min, max } = reapplyWindow(now);
	if (sent < min || sent > max)
		return { error: application_reapply_out_of_range({ label, min, max, days: String(REAPPLY_MAX_DAYS) }) };
	return { value: day };
}

/**
 * How a reapply date reads on the pages: "3 March 2027" (UTC, the day it was stored as), in the page's
 * locale or `locale` (English writes the day first, as it always has here).
 */
export const dayText = (d: Date | string, locale: Locale = getLocale()) =>
	new Date(d).toLocaleDateString(locale === 'en' ? 'en-GB' : locale, {
		day: 'numeric',
		month: 'long',
		year: 'numeric',
		timeZone: 'UTC'
	});
