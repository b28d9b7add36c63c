import { createHash } from 'node:crypto';

/** How a receiver wants its message: the signed event itself, or a chat service's own shape. */
export type EndpointFormat = 'standard' | 'discord' | 'slack';

/** One WEBHOOK_URLS entry as the outbox and the worker know it. */
export interface WebhookEndpoint {
	url: string;
	/** What the outbox stores instead of the URL, whose path may be a token. */
	hash: string;
	host: string;
	format: EndpointFormat;
}

const DISCORD_HOSTS = new Set(['discord.com', 'discordapp.com', 'ptb.discord.com', 'canary.discord.com']);

/** Discord and Slack incoming-webhook URLs by their documented shapes; anything else gets the signed event. */
export function formatOf(url: URL): EndpointFormat {
	if (url.hostname === 'hooks.slack.com') return 'slack';
	if (DISCORD_HOSTS.has(url.hostname) && url.pathname.startsWith('/api/webhooks/')) {
		// Discord's Slack-compatible endpoint takes Slack's shape.
		return url.pathname.replace(/\/+$/, '').endsWith('/slack') ? 'slack' : 'discord';
	}
	return 'standard';
}

/**
 * Discord and Slack post each message to a channel: they take one at a time, in the order the events
 * happened, paced by their rate limits (docs/webhooks.md "Delivery").
 */
export const isChat = (endpoint: Pick<WebhookEndpoint, 'format'>) =>
	endpoint.format === 'discord' || endpoint.format === 'slack';

export const urlHash = (url: string) => createHash('sha256').update(url).digest('hex');

export function toEndpoint(raw: string): WebhookEndpoint {
	const url = new URL(raw);
	return { url: url.href, hash: urlHash(url.href), host: url.host, format: formatOf(url) };
}
