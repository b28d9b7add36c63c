import { describe, expect, it } from 'vitest';
import { applyStanding } from './may-apply';

const now = new Date('2026-06-01T12:00:00Z');
const day = (iso: string) => new Date(`${iso}T00:00:00Z`);
type Row = { id: string; review: 'pending' | 'needs_info' | 'approved' | 'rejected'; reapplyAfter: Date | null };
const row = (id: string, review: Row['review'], reapplyAfter: Date | null = null): Row => ({
	id,
	review,
	reapplyAfter
});

describe('applyStanding: the may-apply rule the apply page and submitApplication share', () => {
	it('lets a member without applications apply', () => {
		expect(applyStanding([], now)).toEqual({ may: 'apply' });
	});

	it('refuses a second application while one is pending or approved', () => {
		for (const review of ['pending', 'approved'] as const)
			expect(applyStanding([row('b', review), row('a', 'rejected')], now)).toEqual({ may: 'not', reason: 'active' });
	});

	it('turns a submission into a resubmission of the application waiting for more information', () => {
		const asked = row('b', 'needs_info');
		expect(applyStanding([asked, row('a', 'rejected', day('2026-07-01'))], now)).toEqual({
			may: 'resubmit',
			application: asked
		});
	});

	it('after rejections, waits for the latest day one named, and lets them apply once it has passed', () => {
		const rejected = [
			row('c', 'rejected', day('2026-06-10')),
			row('b', 'rejected', day('2026-07-01')),
			row('a', 'rejected')
		];
		expect(applyStanding(rejected, now)).toEqual({ may: 'not', reason: 'wait', until: day('2026-07-01') });
		expect(applyStanding(rejected, day('2026-07-02'))).toEqual({ may: 'apply' });
		expect(applyStanding([row('a', 'rejected', day('2026-05-01'))], now)).toEqual({ may: 'apply' });
	});
});
