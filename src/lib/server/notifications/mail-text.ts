import { baseLocale, textDirection, type Locale } from '$lib/i18n/locales';
import { m } from '$lib/paraglide/messages';
import type { NotificationConfig } from '../platform/notification-config';
import { notificationUrl } from './links';
import { markupHtml, markupText, type Markup } from '$lib/notifications/markup';
import { isolate, isolatesAsBdi } from '$lib/notifications/isolate';

/** One e-mail, as text and simple HTML. */
export interface Mail {
	to: string;
	subject: string;
	text: string;
	html: string;
	headers: Record<string, string>;
}

/** Who the mail is from, as the recipient knows it: the community's name and accent (the build's branding). */
export interface MailBrand {
	name: string;
	/** `#rrggbb`: the link button's colour. */
	accent: string;
}

const escapeHtml = (s: string) =>
	s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

// Letters that are written left to right (Latin, Greek, Cyrillic, CJK, Hangul) and right to left (Hebrew, Arabic).
const LTR = 'A-Za-z\u00C0-\u02AF\u0370-\u03FF\u0400-\u04FF\u3040-\u30FF\u3400-\u9FFF\uAC00-\uD7AF';
const RTL = '\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFC';
/** Quotation marks: a quoted comment is a run of its own, its marks the sentence's. */
const QUOTES = '«»“”„"';
/**
 * A run of text in the other direction than the mail's (an English label or motivation in an Arabic mail,
 * an Arabic label in an English one): from its first letter to the last character before a letter of the
 * mail's direction, a quotation mark or an isolated name.
 */
const FOREIGN_RUN = {
	rtl: new RegExp(`(?:[0-9]+)?[${LTR}][^${RTL}${QUOTES}\u2068\u2069]*`, 'g'),
	ltr: new RegExp(`[${RTL}][^${LTR}${QUOTES}\u2068\u2069]*`, 'g')
} as const;
/** What a run leaves to the sentence around it: trailing spaces, colons and commas; a period unless quoted. */
const SENTENCE_TAIL = /[\s:：,،;؛\-–—(]+$/;
const SENTENCE_END = /[\s:：,،;؛\-–—(.]+$/;

/**
 * A paragraph as HTML whose pieces of the other direction keep their own order (issue 61): each run of
 * user text (a community's untranslated label, an English motivation or reason in an Arabic mail) is a
 * `<bdi>`, so that "Which languages do you speak?" does not read "?Which languages do you speak". A piece
 * the notification's words set apart with FSI … PDI (`$lib/notifications/isolate.ts`: each label, comment,
 * reason and name) is a `<bdi>` of its own, so two English pieces side by side never share one.
 */
function bidiHtml(text: string, dir: 'ltr' | 'rtl'): string {
	return text
		.split(/(\u2068[^\u2069]*\u2069)/)
		.map((part) => (part.startsWith('\u2068') ? isolatesAsBdi(escapeHtml(part)) : foreignRunsHtml(part, dir)))
		.join('');
}
function foreignRunsHtml(text: string, dir: 'ltr' | 'rtl'): string {
	let html = '';
	let at = 0;
	for (const match of text.matchAll(FOREIGN_RUN[dir])) {
		const start = match.index;
		const quoted = QUOTES.includes(text[start + match[0].length] ?? '');
		const run = match[0].replace(quoted ? SENTENCE_TAIL : SENTENCE_END, '');
		if (!run) continue;
		html += `${escapeHtml(text.slice(at, start))}<bdi>${escapeHtml(run)}</bdi>`;
		at = start + run.length;
	}
	return html + escapeHtml(text.slice(at));
}

/** One mail's content, said once and written both as text and as HTML. */
interface Content {
	greeting: string;
	/** Plain paragraphs, or a template's body already written both ways (markup.ts). */
	paragraphs: (string | { text: string; html: string })[];
	action: { label: string; text: string; url: string };
	footer: string[];
	stop?: { label: string; text: string; url: string };
}

const P = 'margin:0 0 16px';

// Simple HTML that mail clients render alike: no tables, no images, inline styles only; the language and
// its direction on the root, so that an Arabic mail reads right to left.
const accentOf = (brand: MailBrand) => (/^#[0-9a-f]{6}$/i.test(brand.accent) ? brand.accent : '#6d4ae8');

const htmlOf = (c: Content, subject: string, brand: MailBrand, locale: Locale) => {
	const accent = accentOf(brand);
	return `<!doctype html><html lang="${locale}" dir="${textDirection(locale)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(subject)}</title></head><body style="margin:0;padding:0;background:#f3f3f5;color:#1d1d22;font-family:system-ui,-apple-system,'Segoe UI',Roboto,Arial,sans-serif;font-size:16px;line-height:1.5"><div style="max-width:36rem;margin:0 auto;padding:24px 16px"><p dir="auto" style="${P};font-size:18px;font-weight:700">${escapeHtml(brand.name)}</p><div style="background:#ffffff;border-radius:8px;padding:24px 20px"><p style="${P}">${isolatesAsBdi(escapeHtml(c.greeting))}</p>${c.paragraphs
		.map((p) => (typeof p === 'string' ? `<p style="${P}">${bidiHtml(p, textDirection(locale))}</p>` : p.html))
		.join(
			''
		)}<p style="margin:24px 0 8px"><a href="${escapeHtml(c.action.url)}" style="display:inline-block;background:${accent};color:#ffffff;padding:12px 20px;border-radius:6px;text-decoration:none;font-weight:700">${escapeHtml(c.action.label)}</a></p><p dir="ltr" style="margin:0;font-size:13px;color:#55555f;word-break:break-all;text-align:${textDirection(locale) === 'rtl' ? 'right' : 'left'}">${escapeHtml(c.action.url)}</p></div><div style="padding:16px 4px 0;font-size:13px;color:#55555f">${c.footer
		.map((p) => `<p style="${P}">${isolatesAsBdi(escapeHtml(p))}</p>`)
		.join('')}${
		c.stop
			? `<p style="${P}"><a href="${escapeHtml(c.stop.url)}" style="color:#55555f">${escapeHtml(c.stop.label)}</a></p>`
			: ''
	}</div></div></body></html>`;
};

// The text part: the community's name, then short paragraphs, the link on its own, and the footer after a signature line.
const textOf = (c: Content, brand: MailBrand) =>
	[
		brand.name,
		c.greeting,
		...c.paragraphs.map((p) => (typeof p === 'string' ? p : p.text)),
		c.action.text,
		`-- \n${[...c.footer, ...(c.stop ? [c.stop.text] : [])].join('\n\n')}`
	].join('\n\n') + '\n';

/**
 * A notification by e-mail: the community's name, a greeting (with the applicant's display name when
 * there is one), what happened (its title and body), the link to the page, and why the mail came and how
 * to stop it (RFC 8058 one-click), in the recipient's `locale`, its links to that locale's pages.
 */
export function mailOf(
	config: Pick<NotificationConfig, 'origin'>,
	brand: MailBrand,
	to: string,
	n: { title: string; body: string; markup?: Markup | null; displayName?: string | null },
	unsubscribeToken: string,
	locale: Locale = baseLocale
): Mail {
	const options = { locale };
	const community = isolate(brand.name);
	const open = notificationUrl(config, '/apply', locale);
	const stop = notificationUrl(config, `/inbox/unsubscribe?token=${unsubscribeToken}`, locale);
	const subject = m.notify_mail_subject({ community: brand.name, title: n.title }, options);
	const content: Content = {
		greeting: n.displayName
			? m.notify_mail_greeting({ name: isolate(n.displayName) }, options)
			: m.notify_mail_greeting_anonymous({}, options),
		// A community's template (issue 59): its paragraphs, bold, lists and links, `{link}` to the page itself.
		paragraphs: [
			m.notify_mail_intro({ community }, options),
			n.markup
				? {
						text: markupText(n.markup, open),
						html: markupHtml(n.markup, open, { p: P, link: `color:${accentOf(brand)}` })
					}
				: n.body
		],
		action: {
			label: m.notify_mail_open_link({}, options),
			text: m.notify_mail_open_text({ url: open }, options),
			url: open
		},
		footer: [m.notify_mail_why({ community }, options)],
		stop: {
			label: m.notify_mail_stop_link({}, options),
			text: m.notify_mail_stop_text({ url: stop }, options),
			url: stop
		}
	};
	return {
		to,
		subject,
		text: textOf(content, brand),
		html: htmlOf(content, subject, brand, locale),
		headers: { 'List-Unsubscribe': `<${stop}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' }
	};
}

/** The message with the one-time link that confirms an address (valid 24 hours), in the member's `locale`. */
export function verificationMail(
	config: Pick<NotificationConfig, 'origin'>,
	brand: MailBrand,
	to: string,
	token: string,
	locale: Locale = baseLocale
): Mail {
	const options = { locale };
	const link = notificationUrl(config, `/inbox/verify?token=${token}`, locale);
	const subject = m.notify_verify_subject({ community: brand.name }, options);
	const content: Content = {
		greeting: m.notify_mail_greeting_anonymous({}, options),
		paragraphs: [m.notify_verify_text({ community: isolate(brand.name) }, options)],
		action: { label: m.notify_verify_link({}, options), text: link, url: link },
		footer: [m.notify_verify_ignore({}, options)]
	};
	return { to, subject, text: textOf(content, brand), html: htmlOf(content, subject, brand, locale), headers: {} };
}
