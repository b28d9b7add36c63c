import { getLocale, overwriteGetLocale } from '$lib/paraglide/runtime';
import { describe, expect, it } from 'vitest';
import { moveInputProblems } from './move-inputs';

const original = getLocale;

const hash = `0x${'ab'.repeat(32)}`;

describe('what a move asks of its reason and tx hash (shown in the browser before the confirm dialog)', () => {
	it('asks for a reason to reject, ask for information or record a failure; blanks are no reason', () => {
		expect(moveInputProblems('review', 'rejected', { reason: '  \n ' })).toEqual({
			reason: 'A reason is needed to move review to rejected.'
		});
		expect(moveInputProblems('review', 'needs_info', {}).reason).toMatch(/reason or a comment on at least one answer/);
		expect(moveInputProblems('review', 'needs_info', { asks: 1 })).toEqual({});
		expect(moveInputProblems('distribution', 'failed', { txHash: hash }).reason).toBe(
			'A reason is needed to move token distribution to failed.'
		);
		expect(moveInputProblems('review', 'rejected', { reason: 'Spam' })).toEqual({});
		expect(moveInputProblems('review', 'approved', {})).toEqual({});
	});

	it('asks for a tx hash of the right shape to record added or sent, and none on a review move', () => {
		expect(moveInputProblems('allowlist', 'added', {}).txHash).toMatch(/needed to record added/);
		expect(moveInputProblems('allowlist', 'added', { txHash: '0x1234' }).txHash).toMatch(/64 hexadecimal/);
		expect(moveInputProblems('distribution', 'sent', { txHash: `${hash}0` }).txHash).toMatch(/64 hexadecimal/);
		expect(
			moveInputProblems('distribution', 'sent', { txHash: ` ${hash.toUpperCase().replace('0X', '0x')} ` })
		).toEqual({});
		expect(moveInputProblems('review', 'approved', { txHash: hash })).toEqual({
			txHash: 'A review decision takes no transaction hash.'
		});
	});

	it('takes comments on answers only with needs_info, and a date to apply again only with a rejection', () => {
		const now = new Date('2026-11-27T12:00:00Z');
		expect(moveInputProblems('review', 'rejected', { reason: 'No', asks: 2 }, now).ask).toMatch(/only with/);
		expect(
			moveInputProblems('review', 'needs_info', { asks: 1, reapplyAfter: '2026-12-01' }, now).reapplyAfter
		).toMatch(/only with “Reject”/);
		expect(moveInputProblems('review', 'rejected', { reason: 'No', reapplyAfter: '2026-11-28' }, now)).toEqual({});
		expect(moveInputProblems('review', 'rejected', { reason: 'No', reapplyAfter: '2027-11-27' }, now)).toEqual({});
		for (const bad of ['2026-11-27', '2027-11-28', '2026-02-30', '28.11.2026', '2026-12-1'])
			expect(moveInputProblems('review', 'rejected', { reason: 'No', reapplyAfter: bad }, now).reapplyAfter).toMatch(
				/Apply again from/
			);
	});

	it('refuses a date to apply again in the page language (an Arabic page does not answer in English)', () => {
		const now = new Date('2026-11-27T12:00:00Z');
		overwriteGetLocale(() => 'ar');
		try {
			const outOfRange = moveInputProblems('review', 'rejected', { reason: 'No', reapplyAfter: '2026-11-27' }, now);
			expect(outOfRange.reapplyAfter).toBe(
				'يجب أن يقع الحقل «التقديم مجددًا اعتبارًا من» بين 2026-11-28 و2027-11-27 (من الغد حتى 365 يومًا).'
			);
			const notADate = moveInputProblems('review', 'rejected', { reason: 'No', reapplyAfter: '28.11.2026' }, now);
			expect(notADate.reapplyAfter).toMatch(/^يجب أن يكون الحقل «.+» تاريخًا/);
		} finally {
			overwriteGetLocale(original);
		}
	});
});
