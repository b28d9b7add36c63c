import { describe, expect, it } from 'vitest';
import { slot, slotPieces } from './slot';

describe('slotPieces', () => {
	it('finds each slot wherever the words put it', () => {
		expect(slotPieces(`Applied ${slot(0)} · last changed ${slot(1)}`)).toEqual([
			'Applied ',
			'0',
			' · last changed ',
			'1',
			''
		]);
		expect(slotPieces(`${slot(1)} 之前 ${slot(0)}`)).toEqual(['', '1', ' 之前 ', '0', '']);
		expect(slotPieces('No slot here (1).')).toEqual(['No slot here (1).']);
	});
});
