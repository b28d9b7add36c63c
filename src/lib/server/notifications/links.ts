import type { NotificationConfig } from '../platform/notification-config';

/** A page of the portal as an absolute URL, for messages read outside it (push, e-mail). */
export const notificationUrl = (config: Pick<NotificationConfig, 'origin'>, path: string) => config.origin + path;
