import { and, eq, isNotNull } from 'drizzle-orm';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Database } from '../db/client';
import { applications, memberEmails, members, notifications } from '../db/schema';
import type { NotificationConfig } from '../platform/notification-config';
import { sendResult as result, type Channel, type Queue, type SendResult } from '../outbox/channel';
import type { ClaimedDelivery } from '../outbox/store';
import { signToken } from './tokens';
import { mailOf, verificationMail, type Mail } from './mail-text';
import { baseLocale, isLocale, type Locale } from '$lib/i18n/locales';
import { logger } from '../platform/observability';
import { community } from '$lib/branding/community';
import { brandingIn } from '$lib/branding/saved';
import { savedCommunity } from '../branding/settings';

/** The community the mails come from, named in every subject and body: as /admin/settings saved it, in the recipient's language. */
async function brandOf(db: Database, locale: Locale) {
	const branding = brandingIn(community, await savedCommunity(db), locale);
	return { name: branding.name, accent: branding.accent };
}

/** The recipient's language as members.locale holds it (their last signed-in page visit). */
const localeOf = (locale: string | null): Locale => (isLocale(locale) ? locale : baseLocale);

/**
 * Sends one e-mail outbox row through SMTP_URL (nodemailer, a pool of connections): a verification
 * link (`email.verify`, `{ address }`) or a notification (`notification.email`, `{ notificationId }`)
 * to the recipient's verified address as it is at sending time. Each message's Message-ID is the row's
 * event id, the same on every attempt, so a copy sent again after a lost record reads as one message.
 * Each is written in the member's language (members.locale) and links to that language's pages.
 */
export class MailSender implements Channel {
	readonly name = 'email';
	/** One queue: the rows name no URL (the address is read at sending time). */
	readonly queues: readonly Queue[] = [{ urlHash: null, paced: false }];
	private readonly transport: Transporter;

	constructor(
		private readonly db: () => Database,
		private readonly config: NotificationConfig,
		private readonly secret: string,
		timeoutMs: number
	) {
		// eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- nodemailer's overload for options with a url is typed Mail<any, any>
		this.transport = nodemailer.createTransport({
			url: config.mail!.smtpUrl,
			pool: true,
			maxConnections: 5,
			connectionTimeout: timeoutMs,
			greetingTimeout: timeoutMs,
			socketTimeout: timeoutMs,
			// Never the message or the address in the logs.
			logger: false,
			debug: false
		} as Parameters<typeof nodemailer.createTransport>[0]);
		// A transport's 'error' event with nobody listening would be thrown, outside every attempt (issue 54);
		// the attempt it ended is recorded as failed by its own rejection.
		this.transport.on('error', (err: unknown) =>
			logger.warn(`mail: the SMTP transport failed (${(err as { code?: string }).code ?? 'network error'})`)
		);
	}

	async send(row: ClaimedDelivery): Promise<SendResult> {
		const mail = await this.compose(row);
		if (!mail) return result({ delivered: false, final: true, error: 'not sent: the address was removed or changed' });
		const host = new URL(this.config.origin).hostname;
		try {
			const info = await this.transport.sendMail({
				from: this.config.mail!.from,
				to: mail.to,
				subject: mail.subject,
				text: mail.text,
				html: mail.html,
				messageId: `<${row.eventId}@${host}>`,
				headers: mail.headers
			});
			return result({ delivered: true, status: smtpCode(info.response) });
		} catch (err) {
			const code = (err as { responseCode?: number }).responseCode ?? null;
			// A 5xx answer is the server's final word on this message; anything else may pass later.
			return result({
				delivered: false,
				status: code,
				final: code !== null && code >= 500,
				error: code ? `SMTP ${code}` : `could not send (${(err as { code?: string }).code ?? 'network error'})`
			});
		}
	}

	private async compose(row: ClaimedDelivery): Promise<Mail | null> {
		const db = this.db();
		if (row.eventType === 'email.verify') {
			const address = String(row.data.address);
			const [found] = await db
				.select({ e: memberEmails, locale: members.locale })
				.from(memberEmails)
				.leftJoin(members, eq(members.address, memberEmails.address))
				.where(eq(memberEmails.address, address));
			const e = found?.e;
			if (!e || e.verifiedAt) return null;
			const token = signToken(this.secret, 'verify', { address, email: e.email, createdAtMs: e.createdAt.getTime() });
			const locale = localeOf(found.locale);
			return verificationMail(this.config, await brandOf(db, locale), e.email, token, locale);
		}
		const [n] = await db
			.select({
				title: notifications.title,
				body: notifications.body,
				markup: notifications.markup,
				address: memberEmails.address,
				email: memberEmails.email,
				locale: members.locale,
				displayName: applications.displayName
			})
			.from(notifications)
			.innerJoin(
				memberEmails,
				and(eq(memberEmails.address, notifications.recipientAddress), isNotNull(memberEmails.verifiedAt))
			)
			.leftJoin(members, eq(members.address, notifications.recipientAddress))
			.leftJoin(applications, eq(applications.id, notifications.applicationId))
			.where(eq(notifications.id, Number(row.data.notificationId)));
		if (!n) return null;
		const token = signToken(this.secret, 'unsubscribe', { address: n.address, email: n.email, createdAtMs: 0 });
		const locale = localeOf(n.locale);
		return mailOf(this.config, await brandOf(db, locale), n.email, n, token, locale);
	}

	close(): Promise<void> {
		this.transport.close();
		return Promise.resolve();
	}
}

const smtpCode = (response: unknown) => {
	const code = Number((typeof response === 'string' ? response : '').slice(0, 3));
	return Number.isInteger(code) && code > 0 ? code : null;
};
