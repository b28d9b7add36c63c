import type { NotificationConfig } from '../platform/notification-config';

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

const page = (paragraphs: string[]) =>
	`<!doctype html><html><body style="font-family:sans-serif;line-height:1.5;max-width:36rem">${paragraphs
		.map((p) => `<p>${p}</p>`)
		.join('')}</body></html>`;

/** A notification by e-mail: its title and body, the link to the page, and how to stop (RFC 8058 one-click). */
export function mailOf(
	config: Pick<NotificationConfig, 'origin'>,
	to: string,
	n: { title: string; body: string },
	unsubscribeToken: string
): Mail {
	const open = `${config.origin}/apply`;
	const stop = `${config.origin}/inbox/unsubscribe?token=${unsubscribeToken}`;
	return {
		to,
		subject: n.title,
		text: `${n.body}\n\nSee your application: ${open}\n\nStop these e-mails: ${stop}\n`,
		html: page([
			escapeHtml(n.body),
			`<a href="${escapeHtml(open)}">See your application</a>`,
			`<small><a href="${escapeHtml(stop)}">Stop these e-mails</a></small>`
		]),
		headers: { 'List-Unsubscribe': `<${stop}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' }
	};
}

/** The message with the one-time link that confirms an address (valid 24 hours). */
export function verificationMail(config: Pick<NotificationConfig, 'origin'>, to: string, token: string): Mail {
	const link = `${config.origin}/inbox/verify?token=${token}`;
	const text =
		'Confirm this address to be told by e-mail when your application changes. The link works once, for 24 hours.';
	return {
		to,
		subject: 'Confirm your e-mail address',
		text: `${text}\n\n${link}\n\nIf you did not ask for this, ignore this message: nothing is sent without it.\n`,
		html: page([
			escapeHtml(text),
			`<a href="${escapeHtml(link)}">Confirm this address</a>`,
			'If you did not ask for this, ignore this message: nothing is sent without it.'
		]),
		headers: {}
	};
}
