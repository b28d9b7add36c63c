import { describe, expect, it } from 'vitest';
import { moveInputProblems } from './move-inputs';

const hash = `0x${'ab'.repeat(32)}`;

describe('what a move asks of its reason and tx hash (shown in the browser before the confirm dialog)', () => {
	it('asks for a reason to reject, ask for information or record a failure; blanks are no reason', () => {
		expect(moveInputProblems('review', 'rejected', { reason: '  \n ' })).toEqual({
			reason: 'A reason is needed to move review to rejected.'
		});
		expect(moveInputProblems('review', 'needs_info', {}).reason).toMatch(/reason is needed/);
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
});
