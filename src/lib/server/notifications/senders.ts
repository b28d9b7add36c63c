import type { Database } from '../db/client';
import type { Config } from '../platform/config';
import type { ChannelSenders } from '../webhooks/channels';
import { MailSender } from './mail-sender';
import { PushSender } from './push-sender';

/** The senders of the channels this configuration turns on (VAPID keys; SMTP_URL and MAIL_FROM). */
export function notificationSenders(config: Config, db: () => Database, timeoutMs: number): ChannelSenders {
	const { notifications } = config;
	const senders: ChannelSenders = {};
	if (notifications.push) senders.push = new PushSender(db, notifications, timeoutMs);
	if (notifications.mail) senders.email = new MailSender(db, notifications, config.sessionPassword, timeoutMs);
	return senders;
}

/** The secrets whose links are still honoured: the current session password and the previous ones. */
export const linkSecrets = (config: Config) => [config.sessionPassword, ...config.sessionPasswordsPrevious];
