import { isBuiltIn } from '$lib/applications/asks';
import type { Field } from '$lib/applications/transitions';
import { baseLocale, type Locale } from '$lib/i18n/locales';
import { m } from '$lib/paraglide/messages';
import { isolate } from '$lib/notifications/isolate';
import type { NotificationKind } from '../db/schema';

/** What changed, as the applicant may know it: the move's own fields, never votes, scores, comments or notes. */
export interface NotificationChange {
	kind: NotificationKind;
	/** For `application.transitioned`: the field moved, its new state, and the move's reason and tx hash. */
	field?: Field;
	to?: string;
	reason?: string | null;
	txHash?: string | null;
	/**
	 * A needs_info move's comments on single answers, each with its field's label as /apply shows it; `key`
	 * names the answer, so a built-in field's label is said in the recipient's language; `labels`, a
	 * question's label in the locales the community translated it into.
	 */
	asks?: readonly { key?: string; label: string; labels?: Readonly<Record<string, string>>; comment: string }[];
	/** A rejection's first day on which the applicant may apply again. */
	reapplyAfter?: Date | null;
}

/** One notification as the inbox, a push message and an e-mail show it. */
export interface NotificationText {
	title: string;
	body: string;
	/** The page to open: the applicant's own application (without a locale prefix: links.ts adds the recipient's). */
	url: '/apply' | '/inbox';
}

type Words = (inputs: Record<string, never>, options: { locale: Locale }) => string;

// Each move in the applicant's words: the title says what happened, the sentence what it means for them.
const MOVES: Record<string, [title: Words, sentence: Words]> = {
	'review.pending': [m.notify_review_pending_title, m.notify_review_pending_sentence],
	'review.needs_info': [m.notify_review_needs_info_title, m.notify_review_needs_info_sentence],
	'review.approved': [m.notify_review_approved_title, m.notify_review_approved_sentence],
	'review.rejected': [m.notify_review_rejected_title, m.notify_review_rejected_sentence],
	'review.withdrawn': [m.messages_default_withdrawn_subject, m.messages_default_withdrawn_body],
	'allowlist.pending': [m.notify_allowlist_pending_title, m.notify_allowlist_pending_sentence],
	'allowlist.added': [m.notify_allowlist_added_title, m.notify_allowlist_added_sentence],
	'allowlist.failed': [m.notify_allowlist_failed_title, m.notify_allowlist_failed_sentence],
	'distribution.pending': [m.notify_distribution_pending_title, m.notify_distribution_pending_sentence],
	'distribution.sent': [m.notify_distribution_sent_title, m.notify_distribution_sent_sentence],
	'distribution.failed': [m.notify_distribution_failed_title, m.notify_distribution_failed_sentence]
};

/** The built-in answers' labels, as /apply shows them in each language. */
const BUILT_IN_LABELS: Record<string, Words> = {
	displayName: m.notify_field_display_name,
	motivation: m.notify_field_motivation,
	contact: m.notify_field_contact
};

/** The sentences of a body are set apart by a space, except in Chinese, whose full stops need none. */
const sentenceGap = (locale: Locale) => (locale === 'zh-Hans' ? '' : ' ');

/**
 * A reapply day as the recipient reads it, in UTC (the day it was stored as): "3 March 2027",
 * "3 de marzo de 2027", "2027年3月3日". English keeps the day-month order the portal has always shown.
 */
export const dayInWords = (day: Date, locale: Locale) =>
	new Intl.DateTimeFormat(locale === baseLocale ? 'en-GB' : locale, {
		day: 'numeric',
		month: 'long',
		year: 'numeric',
		timeZone: 'UTC'
	}).format(day);

/**
 * notificationText: the one place a change becomes the words an applicant reads ("Your application
 * was approved", "The reviewers ask for more information: …", "… (tx 0x…)"), in the recipient's
 * `locale` (members.locale; never the locale of whoever made the move). Pure: a change in, text out.
 */
export function notificationText(change: NotificationChange, locale: Locale = baseLocale): NotificationText {
	const options = { locale };
	if (change.kind === 'application.submitted')
		return {
			title: m.notify_submitted_title({}, options),
			body: m.notify_submitted_body({}, options),
			url: '/apply'
		};
	if (change.kind === 'application.resubmitted')
		return {
			title: m.notify_resubmitted_title({}, options),
			body: m.notify_resubmitted_body({}, options),
			url: '/apply'
		};
	const [titleOf, sentenceOf] = MOVES[`${change.field}.${change.to}`] ?? [
		m.notify_changed_title,
		m.notify_changed_sentence
	];
	const title = titleOf({}, options);
	const parts: string[] = [
		change.reason
			? m.notify_title_with_reason({ title, reason: isolate(change.reason) }, options)
			: m.notify_title_sentence({ title }, options)
	];
	if (change.txHash) parts.push(m.notify_tx({ hash: change.txHash }, options));
	parts.push(...asksInWords(change, locale));
	parts.push(sentenceOf({}, options));
	if (change.reapplyAfter) parts.push(m.notify_reapply({ date: dayInWords(change.reapplyAfter, locale) }, options));
	return {
		title: change.txHash ? m.notify_title_with_tx({ title, hash: short(change.txHash) }, options) : title,
		body: parts.join(sentenceGap(locale)),
		url: '/apply'
	};
}

/**
 * A needs_info move's asks, each as "<field's label>: “<comment>”" in the recipient's language; the
 * community's label and the comment each isolated (FSI … PDI), so that an English question and its English
 * comment in an Arabic body are two runs, each with its own punctuation.
 */
export function asksInWords(change: Pick<NotificationChange, 'asks'>, locale: Locale): string[] {
	const options = { locale };
	return (change.asks ?? []).map(({ key, label, labels, comment }) => {
		const builtIn = key !== undefined && isBuiltIn(key);
		const said = builtIn
			? BUILT_IN_LABELS[key]!({}, options)
			: (labels && Object.hasOwn(labels, locale) ? labels[locale] : undefined) || label;
		// A label that is a question ends in its own mark: "Which languages?" takes no colon after it.
		const ask = /[?？؟:：]$/.test(said.trim()) ? m.notify_ask_question : m.notify_ask;
		return ask({ label: builtIn ? said.trim() : isolate(said.trim()), comment: isolate(comment) }, options);
	});
}

/** The sentences of a body joined as the recipient's language sets them apart. */
export const joinSentences = (parts: readonly string[], locale: Locale) => parts.join(sentenceGap(locale));

/** 0x1234…abcd: a hash short enough for a notification's title; the body carries it whole. */
const short = (hash: string) => `${hash.slice(0, 6)}…${hash.slice(-4)}`;

/**
 * A notification about an application in a portal of several programmes: its title names the programme, in
 * the recipient's language where the community translated the name ("Builders: Your application was
 * approved"), so a member in two programmes knows which one it is about. With one programme, unchanged.
 */
export function inProgram(text: NotificationText, program: string | null, locale: Locale): NotificationText {
	if (!program) return text;
	// The name set apart from the sentence's direction (FSI … PDI): a Latin name in an Arabic title keeps its order.
	return {
		...text,
		title: m.notify_title_in_program({ program: isolate(program), title: text.title }, { locale })
	};
}
