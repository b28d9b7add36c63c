import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { labelTextColor, timeAgo } from './pulse';

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
