import type { EndpointFormat } from './endpoints';
import type { WebhookEventType } from './events';

/** The outbox row fields a message is made of. */
export interface OutboxEvent {
	eventType: string;
	data: Record<string, unknown>;
	occurredAt: Date;
}

/** The signed event body: { type, timestamp, data } (docs/webhooks.md). */
export const eventBody = (e: OutboxEvent) =>
	JSON.stringify({ type: e.eventType, timestamp: e.occurredAt.toISOString(), data: e.data });

/** The request body for a receiver of `format`: the event, or a readable chat message. */
export function requestBody(format: EndpointFormat, e: OutboxEvent): string {
	if (format === 'standard') return eventBody(e);
	if (format === 'slack') return JSON.stringify({ text: readable(e, slackEscape) });
	// No @everyone or role pings from applicant text, and no link previews.
	return JSON.stringify({
		content: truncate(readable(e, discordEscape), 2000),
		allowed_mentions: { parse: [] },
		flags: 4
	});
}

type Escape = (text: string) => string;

// Markdown in applicant text stays literal.
const discordEscape: Escape = (text) => text.replace(/[\\*_~`|>#[\]()<:-]/g, '\\$&');
// Slack's own three escapes; they also defuse <!channel> and <url|label>.
const slackEscape: Escape = (text) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const truncate = (text: string, max: number) =>
	[...text].length <= max ? text : [...text].slice(0, max - 1).join('') + '…';
const short = (address: unknown) => (typeof address === 'string' ? `${address.slice(0, 6)}…${address.slice(-4)}` : '?');
const str = (value: unknown) => (typeof value === 'string' ? value : '');

/** One or two lines a person reads in a channel. */
export function readable(e: OutboxEvent, esc: Escape): string {
	const d = e.data;
	const who = `${esc(truncate(str(d.displayName), 80))} (${short(d.applicant)})`;
	switch (e.eventType as WebhookEventType) {
		case 'application.submitted':
			return `New application from ${who}.`;
		case 'application.resubmitted':
			return `${who} resubmitted their application with the information asked for.`;
		case 'application.transitioned': {
			const lines = [`${who}: ${str(d.field)} ${str(d.from)} → ${str(d.to)} (by ${short(d.executor)}).`];
			if (d.reason) lines.push(`Reason: ${esc(truncate(str(d.reason), 500))}`);
			if (d.txHash) lines.push(`Transaction: ${str(d.txHash)}`);
			return lines.join('\n');
		}
		case 'application.note_added':
			return `A reviewer (${short(d.author)}) added a note to application ${str(d.applicationId).slice(0, 8)}.`;
		case 'application.voted': {
			// Counts only: a vote's comment never leaves the portal (docs/decisions/0028-reviewer-votes.md).
			const c = (d.counts ?? {}) as Record<string, unknown>;
			return `A reviewer (${short(d.reviewer)}) voted ${esc(str(d.vote))} on application ${str(d.applicationId).slice(0, 8)}: ${Number(c.approve) || 0} approve, ${Number(c.reject) || 0} reject, ${Number(c.abstain) || 0} abstain.`;
		}
		case 'checkin.created':
			return d.note
				? `${short(d.member)} checked in: ${esc(truncate(str(d.note), 280))}`
				: `${short(d.member)} checked in.`;
		default:
			return `Event ${esc(e.eventType)}.`;
	}
}
