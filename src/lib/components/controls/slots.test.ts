import { describe, expect, it } from 'vitest';
import { pieces, slot } from './slots';

describe('pieces: a message cut at its markup slots', () => {
	it('keeps the text around each slot, in the translation’s order', () => {
		expect(pieces(`Submitted ${slot(0)}, replaced ${slot(1)}`)).toEqual(['Submitted ', 0, ', replaced ', 1]);
		expect(pieces(`${slot(1)}提交，${slot(0)}`)).toEqual([1, '提交，', 0]);
	});
	it('a message without slots is one piece', () => {
		expect(pieces('No changes yet.')).toEqual(['No changes yet.']);
	});
});
