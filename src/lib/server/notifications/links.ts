import { localizedPath, type Locale } from '$lib/i18n/locales';
import type { NotificationConfig } from '../platform/notification-config';

/**
 * A page of the portal as an absolute URL in the recipient's locale, for messages read outside it
 * (e-mail): `/apply` for English, `/es/apply` for Spanish (docs/decisions/0043-translations-by-url-prefix.md).
 */
export const notificationUrl = (config: Pick<NotificationConfig, 'origin'>, path: string, locale: Locale) =>
	config.origin + localizedPath(path, locale);
