import * as crypto from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { bearerMatches } from './bearer';

vi.mock('node:crypto', async (original) => {
	const actual = await original<typeof import('node:crypto')>();
	return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) };
});

describe("the cron endpoint's guard (Bearer CRON_SECRET)", () => {
	const secret = 'a-cron-secret-of-enough-length';

	it('lets in exactly `Bearer <CRON_SECRET>`', () => {
		expect(bearerMatches(`Bearer ${secret}`, secret)).toBe(true);
	});

	it.each([
		['no header', null],
		['an empty header', ''],
		['the secret without the scheme', secret],
		['another scheme', `Basic ${secret}`],
		['lower-case scheme', `bearer ${secret}`],
		['a prefix of the secret', `Bearer ${secret.slice(0, -1)}`],
		['the secret and more', `Bearer ${secret}x`],
		['a NUL byte appended', `Bearer ${secret}\0`],
		['two spaces', `Bearer  ${secret}`]
	])('refuses %s', (_, header) => {
		expect(bearerMatches(header, secret)).toBe(false);
	});

	it('refuses everything while CRON_SECRET is unset, even an empty token', () => {
		expect(bearerMatches('Bearer ', null)).toBe(false);
		expect(bearerMatches('Bearer null', null)).toBe(false);
		expect(bearerMatches('Bearer ', '')).toBe(false);
	});

	it('compares fixed-length digests in constant time whatever the header, so no length is compared first', () => {
		const compare = vi.mocked(crypto.timingSafeEqual);
		for (const header of ['Bearer x', `Bearer ${secret}`, `Bearer ${secret}${'y'.repeat(500)}`]) {
			compare.mockClear();
			bearerMatches(header, secret);
			expect(compare).toHaveBeenCalledTimes(1);
			const [a, b] = compare.mock.calls[0]! as [Buffer, Buffer];
			expect([a.length, b.length]).toEqual([32, 32]);
		}
	});
});
