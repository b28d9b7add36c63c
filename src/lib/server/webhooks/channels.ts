import type { SendResult } from './deliver';
import type { AttemptSender } from './dispatch';
import type { WebhookEndpoint } from './endpoints';
import type { ClaimedDelivery } from './outbox';

/** The applicants' channels (docs/notifications.md): their rows share the outbox, its leases and retries with webhooks. */
export type NotificationChannel = 'push' | 'email';

/** Sends one claimed row of a channel: the row names what to send (ids), the sender reads and sends it. */
export interface ChannelSender {
	send(row: ClaimedDelivery): Promise<SendResult>;
	close(): Promise<void>;
}

export type ChannelSenders = Partial<Record<NotificationChannel, ChannelSender>>;

/** A channel as the dispatcher knows endpoints: its rows carry the channel's name where a webhook's carry the URL's hash. */
export const channelEndpoint = (channel: NotificationChannel): WebhookEndpoint => ({
	url: '',
	hash: channel,
	host: channel,
	format: channel
});

/** The endpoints of the channels that are on. */
export const channelEndpoints = (channels: ChannelSenders): WebhookEndpoint[] =>
	(Object.keys(channels) as NotificationChannel[]).map(channelEndpoint);

/** One sender for every row the dispatcher claims: a channel's to its sender, a webhook's to `webhook`. */
export function routingSender(
	webhook: (AttemptSender & { close(): Promise<void> }) | null,
	channels: ChannelSenders
): AttemptSender & { close(): Promise<void> } {
	return {
		send(endpoint, row) {
			const channel = endpoint.format === 'push' || endpoint.format === 'email' ? channels[endpoint.format] : null;
			if (channel) return channel.send(row);
			if (!webhook) throw new Error(`no sender for ${endpoint.format}`);
			return webhook.send(endpoint, row);
		},
		async close() {
			await Promise.all([webhook?.close(), ...Object.values(channels).map((c) => c.close())]);
		}
	};
}
