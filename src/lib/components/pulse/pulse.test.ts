import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { labelTextColor, loadPulse, timeAgo } from './pulse';

function luminance(hex: string) {
	const channel = (i: number) => {
		const c = parseInt(hex.slice(i, i + 2), 16) / 255;
		return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
	};
	return 0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4);
}
const contrast = (a: number, b: number) => (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);

describe('label text colour', () => {
	it('is readable on every background: WCAG AA contrast of at least 4.5:1', () => {
		fc.assert(
			fc.property(fc.integer({ min: 0, max: 0xffffff }), (n) => {
				const hex = n.toString(16).padStart(6, '0');
				const text = labelTextColor(hex) === '#000000' ? 0 : 1;
				expect(contrast(luminance(hex), text)).toBeGreaterThanOrEqual(4.5);
			}),
			{ numRuns: 5000 }
		);
		expect(labelTextColor('ffffff')).toBe('#000000');
		expect(labelTextColor('000000')).toBe('#ffffff');
	});
});

describe('time since the last update', () => {
	const now = Date.parse('2026-11-21T12:00:00Z');
	it('says how long ago in words', () => {
		expect(timeAgo('2026-11-21T11:59:50Z', now)).toBe('just now');
		expect(timeAgo('2026-11-21T11:55:00Z', now)).toBe('5 minutes ago');
		expect(timeAgo('2026-11-21T09:00:00Z', now)).toBe('3 hours ago');
		expect(timeAgo('2026-11-20T10:00:00Z', now)).toBe('yesterday');
		expect(timeAgo('2026-11-01T12:00:00Z', now)).toBe('2 weeks ago');
		expect(timeAgo('2025-10-01T12:00:00Z', now)).toBe('last year');
		expect(timeAgo('not a date', now)).toBe('some time ago');
	});
});

describe('loading the feed', () => {
	const card = {
		number: 7,
		title: 'Docs',
		url: 'https://github.com/o/r/issues/7',
		author: 'a',
		labels: [{ name: 'help', color: 'a2eeef' }],
		comments: 1,
		createdAt: '2026-11-20T10:00:00Z',
		updatedAt: '2026-11-21T10:00:00Z'
	};
	const feed = { items: [card], fetchedAt: '2026-11-21T11:00:00Z', source: 'https://github.com/o/r/issues' };
	const answer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
		(() => Promise.resolve(new Response(JSON.stringify(body), { status, headers }))) as unknown as typeof fetch;

	it('shows a well-formed 200 and refuses a body of the wrong shape', async () => {
		expect(await loadPulse(answer(200, feed))).toMatchObject({ status: 'ok', items: [card] });
		const badColour = { ...feed, items: [{ ...card, labels: [{ name: 'x', color: 'red;}' }] }] };
		expect((await loadPulse(answer(200, badColour))).status).toBe('error');
		expect((await loadPulse(answer(200, { ...feed, source: 'javascript:alert(1)' }))).status).toBe('error');
		expect((await loadPulse(answer(200, { ...feed, items: [{ ...card, number: '7' }] }))).status).toBe('error');
	});

	it('leaves the feed out only for the server own 204 (no repository configured)', async () => {
		const noContent = (() => Promise.resolve(new Response(null, { status: 204 }))) as unknown as typeof fetch;
		expect(await loadPulse(noContent)).toEqual({ status: 'absent' });
		// The answer before decision 0025 is now a failure like any other.
		const notConfigured = { error: { code: 'not_configured', message: 'No repository is configured.' } };
		expect((await loadPulse(answer(503, notConfigured))).status).toBe('error');
		const upstream = { error: { code: 'upstream_unavailable', message: 'GitHub is away.' } };
		expect(
			await loadPulse(answer(503, upstream, { link: '<https://github.com/o/r/issues>; rel="alternate"' }))
		).toEqual({ status: 'error', items: [], source: 'https://github.com/o/r/issues' });
		// A 503 from an edge or proxy (no such body) is a failure the page reports.
		const edge = (() =>
			Promise.resolve(new Response('Service Unavailable', { status: 503 }))) as unknown as typeof fetch;
		expect((await loadPulse(edge)).status).toBe('error');
		expect((await loadPulse(answer(500, notConfigured))).status).toBe('error');
	});
});
