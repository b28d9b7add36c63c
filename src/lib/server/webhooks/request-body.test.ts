import { describe, expect, it } from 'vitest';
import { formatOf, toEndpoint } from './endpoints';
import { eventBody, requestBody } from './request-body';

const occurredAt = new Date('2026-11-22T10:00:00Z');
const transitioned = {
	eventType: 'application.transitioned',
	occurredAt,
	data: {
		applicationId: '0b7e1c8e-0000-4000-8000-000000000000',
		applicant: '0x1234567890abcdef1234567890abcdef12345678',
		displayName: '@everyone *Ada*',
		field: 'review',
		from: 'pending',
		to: 'rejected',
		reason: 'Spam <!channel> [link](https://evil.example)',
		txHash: null,
		executor: '0xabcdefabcdefabcdefabcdefabcdefabcdefabcd'
	}
};

const parsed = (body: string) => JSON.parse(body) as Record<string, unknown> & { content: string; text: string };

describe('webhook messages', () => {
	it('recognises Discord and Slack incoming-webhook URLs; anything else gets the signed event', () => {
		expect(formatOf(new URL('https://discord.com/api/webhooks/1/abc'))).toBe('discord');
		expect(formatOf(new URL('https://discordapp.com/api/webhooks/1/abc'))).toBe('discord');
		expect(formatOf(new URL('https://discord.com/api/webhooks/1/abc/slack'))).toBe('slack');
		expect(formatOf(new URL('https://hooks.slack.com/services/T/B/x'))).toBe('slack');
		expect(formatOf(new URL('https://discord.com.evil.example/api/webhooks/1/abc'))).toBe('standard');
		expect(formatOf(new URL('https://bot.example.org/hook'))).toBe('standard');
		const endpoint = toEndpoint('https://discord.com/api/webhooks/1/token');
		expect(endpoint).toMatchObject({ host: 'discord.com', format: 'discord' });
		expect(endpoint.hash).toMatch(/^[0-9a-f]{64}$/);
	});

	it('the signed body is { type, timestamp, data }', () => {
		expect(JSON.parse(requestBody('standard', transitioned))).toEqual({
			type: 'application.transitioned',
			timestamp: '2026-11-22T10:00:00.000Z',
			data: transitioned.data
		});
		expect(requestBody('standard', transitioned)).toBe(eventBody(transitioned));
	});

	it('Discord gets { content } with no pings, no previews and applicant markdown kept literal', () => {
		const body = parsed(requestBody('discord', transitioned));
		expect(body.allowed_mentions).toEqual({ parse: [] });
		expect(body.flags).toBe(4);
		expect(body.content).toContain('review pending → rejected');
		expect(body.content).toContain('\\*Ada\\*');
		expect(body.content).toContain('\\[link\\]\\(https\\:');
		expect(body.content).toContain('0x1234…5678');
		expect(Object.keys(body)).toEqual(['content', 'allowed_mentions', 'flags']);
	});

	it('Slack gets { text } with &, < and > escaped, so no <!channel> and no hidden links', () => {
		const body = parsed(requestBody('slack', transitioned));
		expect(Object.keys(body)).toEqual(['text']);
		expect(body.text).toContain('Reason: Spam &lt;!channel&gt; [link](https://evil.example)');
		expect(body.text).not.toMatch(/<!channel>/);
	});

	it('every event type reads as a sentence', () => {
		const base = {
			occurredAt,
			data: {
				...transitioned.data,
				note: 'hi',
				member: transitioned.data.applicant,
				author: transitioned.data.executor
			}
		};
		const text = (eventType: string) => parsed(requestBody('slack', { ...base, eventType })).text;
		expect(text('application.submitted')).toMatch(/^New application from @everyone \*Ada\* \(0x1234…5678\)\.$/);
		expect(text('application.resubmitted')).toMatch(/resubmitted their application/);
		expect(text('application.note_added')).toMatch(/added a note to application 0b7e1c8e/);
		expect(text('checkin.created')).toBe('0x1234…5678 checked in: hi');
	});
});
