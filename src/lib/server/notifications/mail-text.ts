import { baseLocale, textDirection, type Locale } from '$lib/i18n/locales';
import { m } from '$lib/paraglide/messages';
import type { NotificationConfig } from '../platform/notification-config';
import { notificationUrl } from './links';

/** One e-mail, as text and simple HTML. */
export interface Mail {
	to: string;
	subject: string;
	text: string;
	html: string;
	headers: Record<string, string>;
}

const escapeHtml = (s: string) =>
	s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

// A language other than the base names itself and its direction, so that a mail client sets Arabic right to left.
const page = (paragraphs: string[], locale: Locale) =>
	`<!doctype html><html${
		locale === baseLocale ? '' : ` lang="${locale}" dir="${textDirection(locale)}"`
	}><body style="font-family:sans-serif;line-height:1.5;max-width:36rem">${paragraphs
		.map((p) => `<p>${p}</p>`)
		.join('')}</body></html>`;

/**
 * A notification by e-mail: its title and body, the link to the page, and how to stop (RFC 8058
 * one-click), in the recipient's `locale`, its links to that locale's pages.
 */
export function mailOf(
	config: Pick<NotificationConfig, 'origin'>,
	to: string,
	n: { title: string; body: string },
	unsubscribeToken: string,
	locale: Locale = baseLocale
): Mail {
	const options = { locale };
	const open = notificationUrl(config, '/apply', locale);
	const stop = notificationUrl(config, `/inbox/unsubscribe?token=${unsubscribeToken}`, locale);
	return {
		to,
		subject: n.title,
		text: `${n.body}\n\n${m.notify_mail_open_text({ url: open }, options)}\n\n${m.notify_mail_stop_text({ url: stop }, options)}\n`,
		html: page(
			[
				escapeHtml(n.body),
				`<a href="${escapeHtml(open)}">${escapeHtml(m.notify_mail_open_link({}, options))}</a>`,
				`<small><a href="${escapeHtml(stop)}">${escapeHtml(m.notify_mail_stop_link({}, options))}</a></small>`
			],
			locale
		),
		headers: { 'List-Unsubscribe': `<${stop}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' }
	};
}

/** The message with the one-time link that confirms an address (valid 24 hours), in the member's `locale`. */
export function verificationMail(
	config: Pick<NotificationConfig, 'origin'>,
	to: string,
	token: string,
	locale: Locale = baseLocale
): Mail {
	const options = { locale };
	const link = notificationUrl(config, `/inbox/verify?token=${token}`, locale);
	const text = m.notify_verify_text({}, options);
	const ignore = m.notify_verify_ignore({}, options);
	return {
		to,
		subject: m.notify_verify_subject({}, options),
		text: `${text}\n\n${link}\n\n${ignore}\n`,
		html: page(
			[
				escapeHtml(text),
				`<a href="${escapeHtml(link)}">${escapeHtml(m.notify_verify_link({}, options))}</a>`,
				escapeHtml(ignore)
			],
			locale
		),
		headers: {}
	};
}
