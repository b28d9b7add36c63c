import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { MESSAGE_EVENTS, messageTemplates, type MessageEvent } from '../db/schema';
import { fieldError } from '../platform/outcome';
import type { Outcome } from '../platform/outcome';
import { m } from '$lib/paraglide/messages';
import { isLocale, locales, type Locale } from '$lib/i18n/locales';
import {
	BODY_MAX,
	PLACEHOLDERS,
	SUBJECT_MAX,
	badLink,
	fillMarkup,
	fillText,
	markupText,
	parseMarkup,
	unknownPlaceholder,
	type Markup,
	type PlaceholderValues
} from '$lib/notifications/markup';
import type { NotificationChange } from './notification-text';

export { MESSAGE_EVENTS, type MessageEvent };

/** A message's words as a template holds them: a subject and a body with placeholders. */
export interface Template {
	subject: string;
	body: string;
}

/** A move's notification as an event of the templates, or null for one no template covers (a move back to pending). */
export function eventOf(change: NotificationChange): MessageEvent | null {
	if (change.kind === 'application.submitted' || change.kind === 'application.resubmitted') return change.kind;
	if (change.kind !== 'application.transitioned') return null;
	if (change.field === 'review' && change.to === 'withdrawn') return 'application.withdrawn';
	const event = `${change.field}.${change.to}`;
	return (MESSAGE_EVENTS as readonly string[]).includes(event) ? (event as MessageEvent) : null;
}

/**
 * The portal's own words for an event in `locale` (the `notify_*` messages the inbox has always shown),
 * as a template: what `/admin/messages` starts from and what a reset returns to. Without a saved template
 * a notification is written exactly as before (notification-text.ts); these say the same with placeholders.
 */
export function defaultTemplate(event: MessageEvent, locale: Locale): Template {
	const o = { locale };
	const moves: Record<MessageEvent, () => Template> = {
		'application.submitted': () => ({ subject: m.notify_submitted_title({}, o), body: m.notify_submitted_body({}, o) }),
		'application.resubmitted': () => ({
			subject: m.notify_resubmitted_title({}, o),
			body: m.notify_resubmitted_body({}, o)
		}),
		'review.needs_info': () => ({
			subject: m.notify_review_needs_info_title({}, o),
			body: ['{reason}', '{asks}', m.notify_review_needs_info_sentence({}, o)].join('\n\n')
		}),
		'review.approved': () => ({
			subject: m.notify_review_approved_title({}, o),
			body: ['{reason}', m.notify_review_approved_sentence({}, o)].join('\n\n')
		}),
		'review.rejected': () => ({
			subject: m.notify_review_rejected_title({}, o),
			body: [
				'{reason}',
				m.notify_review_rejected_sentence({}, o),
				m.notify_reapply({ date: '{reapplyAfter}' }, o)
			].join('\n\n')
		}),
		'application.withdrawn': () => ({
			subject: m.messages_default_withdrawn_subject({}, o),
			body: m.messages_default_withdrawn_body({}, o)
		}),
		'allowlist.added': () => ({
			subject: m.notify_allowlist_added_title({}, o),
			body: m.notify_allowlist_added_sentence({}, o)
		}),
		'distribution.sent': () => ({
			subject: m.notify_distribution_sent_title({}, o),
			body: m.notify_distribution_sent_sentence({}, o)
		}),
		'decisions.released': () => ({
			subject: m.messages_default_released_subject({}, o),
			body: m.messages_default_released_body({}, o)
		})
	};
	return moves[event]();
}

/** A template's words for one recipient: the title (inbox, push, the e-mail's subject), the body as text and as markup. */
export interface Rendered {
	title: string;
	body: string;
	markup: Markup;
}

/**
 * A template filled for one recipient. `linkPath` is the applicant's page in their locale (`/es/apply`):
 * the text body (inbox, push) says it; the markup keeps `{link}` for the e-mail to make absolute.
 */
export function renderTemplate(template: Template, values: PlaceholderValues, linkPath: string): Rendered {
	const markup = fillMarkup(parseMarkup(template.body), values);
	return {
		title: fillText(template.subject, { ...values, link: linkPath })
			.replace(/\s+/g, ' ')
			.trim(),
		body: markupText(markup, linkPath),
		markup
	};
}

/** A template as saved: the form's fields, checked. */
export interface TemplateInput extends Template {
	event: MessageEvent;
	locale: Locale;
	/** The `updated_at` the editor started from (ISO 8601), '' for the default; absent: no check. */
	version?: string;
}

export const TEMPLATE_FIELDS = ['event', 'locale', 'subject', 'body', 'version'] as const;

/** The event and locale a form names, or a 400 naming the field. */
export function parseKey(input: Record<string, unknown>): Outcome<{ event: MessageEvent; locale: Locale }> {
	const { event, locale } = input;
	if (typeof event !== 'string' || !(MESSAGE_EVENTS as readonly string[]).includes(event))
		return fieldError('event', m.messages_event_unknown({ events: MESSAGE_EVENTS.join(', ') }));
	if (!isLocale(locale)) return fieldError('locale', m.messages_locale_unknown({ locales: locales.join(', ') }));
	return { ok: true, value: { event: event as MessageEvent, locale } };
}

/**
 * A subject and a body checked as every message is (a template, an admin's message to applicants):
 * a subject of one line (1–200), a body of 1–5,000 characters, placeholders among `allowed`, links http(s).
 */
export function parseWords(input: Record<string, unknown>, allowed?: readonly string[]): Outcome<Template> {
	const { subject, body } = input;
	if (typeof subject !== 'string' || subject.trim() === '') return fieldError('subject', m.messages_subject_empty());
	if (subject.length > SUBJECT_MAX) return fieldError('subject', m.messages_subject_too_long({ max: SUBJECT_MAX }));
	if (/[\r\n]/.test(subject)) return fieldError('subject', m.messages_subject_one_line());
	if (typeof body !== 'string' || body.trim() === '') return fieldError('body', m.messages_body_empty());
	if (body.length > BODY_MAX) return fieldError('body', m.messages_body_too_long({ max: BODY_MAX }));
	const known = (allowed ?? PLACEHOLDERS).map((name) => `{${name}}`).join(', ');
	const inSubject = unknownPlaceholder(subject, allowed);
	if (inSubject) return fieldError('subject', m.messages_unknown_placeholder({ placeholder: inSubject, known }));
	const inBody = unknownPlaceholder(body, allowed);
	if (inBody) return fieldError('body', m.messages_unknown_placeholder({ placeholder: inBody, known }));
	const link = badLink(body);
	if (link) return fieldError('body', m.messages_bad_link({ link }));
	return { ok: true, value: { subject: subject.trim(), body: body.trim() } };
}

export function parseTemplate(input: Record<string, unknown>): Outcome<TemplateInput> {
	const key = parseKey(input);
	if (!key.ok) return key;
	const words = parseWords(input);
	if (!words.ok) return words;
	const { version } = input;
	if (version !== undefined && (typeof version !== 'string' || (version !== '' && Number.isNaN(Date.parse(version)))))
		return fieldError('version', m.messages_version_invalid());
	return { ok: true, value: { ...key.value, ...words.value, ...(version === undefined ? {} : { version }) } };
}

/** A saved template's time to the millisecond, as the editor's `version` carries it. */
const savedAt = sql`date_trunc('milliseconds', ${messageTemplates.updatedAt})`;

/**
 * Saves a template for its event and locale. With a `version`, only over what the editor started from:
 * a save made meanwhile by another admin (or a reset) is not overwritten; the later save is told (409).
 */
export async function saveTemplate(
	db: Database,
	by: string,
	input: TemplateInput
): Promise<Outcome<{ version: string }>> {
	const { event, locale, subject, body, version } = input;
	const now = sql`date_trunc('milliseconds', now())`;
	let saved: { updatedAt: Date }[];
	if (version === undefined) {
		saved = await db
			.insert(messageTemplates)
			.values({ event, locale, subject, body, updatedBy: by, updatedAt: now })
			.onConflictDoUpdate({
				target: [messageTemplates.event, messageTemplates.locale],
				set: { subject, body, updatedBy: by, updatedAt: now }
			})
			.returning({ updatedAt: messageTemplates.updatedAt });
	} else if (version === '') {
		saved = await db
			.insert(messageTemplates)
			.values({ event, locale, subject, body, updatedBy: by, updatedAt: now })
			.onConflictDoNothing()
			.returning({ updatedAt: messageTemplates.updatedAt });
	} else {
		saved = await db
			.update(messageTemplates)
			.set({ subject, body, updatedBy: by, updatedAt: now })
			.where(
				and(
					eq(messageTemplates.event, event),
					eq(messageTemplates.locale, locale),
					sql`${savedAt} = ${new Date(version).toISOString()}::timestamptz`
				)
			)
			.returning({ updatedAt: messageTemplates.updatedAt });
	}
	if (saved.length === 0) return { ok: false, status: 409, code: 'conflict', message: m.messages_conflict() };
	return { ok: true, value: { version: saved[0]!.updatedAt.toISOString() } };
}

/** Back to the portal's own words: the saved template of the event and locale is deleted. */
export async function resetTemplate(db: Database, key: { event: MessageEvent; locale: Locale }) {
	await db
		.delete(messageTemplates)
		.where(and(eq(messageTemplates.event, key.event), eq(messageTemplates.locale, key.locale)));
}

/** Every saved template, for the editor. */
export function savedTemplates(db: Database) {
	return db
		.select({
			event: messageTemplates.event,
			locale: messageTemplates.locale,
			subject: messageTemplates.subject,
			body: messageTemplates.body,
			updatedAt: sql<string>`to_char(${savedAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
			updatedBy: messageTemplates.updatedBy
		})
		.from(messageTemplates);
}
