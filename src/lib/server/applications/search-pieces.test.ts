import { describe, expect, it } from 'vitest';
import { indexPieces, shareWith } from './search-pieces';

const commonIn =
	(...words: string[]) =>
	(word: string) =>
		words.includes(word.toLowerCase());

describe("a search's parts looked up in a trigram index", () => {
	it('leaves out the common words, keeping the characters that mark where the others start and end', () => {
		expect(indexPieces('icant 777.', commonIn('icant'))).toEqual([' 777.']);
		expect(indexPieces('Ada icant Lovelace', commonIn('icant'))).toEqual(['Ada ', ' Lovelace']);
		expect(indexPieces('the dao, the guild', commonIn('the'))).toEqual([' dao, ', ' guild']);
	});

	it('keeps only parts with a word of three characters or more, which give pg_trgm something to narrow by', () => {
		expect(indexPieces('icant 77 berlin', commonIn('icant'))).toEqual([' 77 berlin']);
		expect(indexPieces('icant 7. x', commonIn('icant'))).toBeUndefined();
		expect(indexPieces('ünïcødé icant', commonIn('icant'))).toEqual(['ünïcødé ']);
	});

	it('looks the search up whole when no word is common, or every one is', () => {
		expect(indexPieces('icant 777.', commonIn())).toBeUndefined();
		expect(indexPieces('applicant', commonIn('applicant'))).toBeUndefined();
		expect(indexPieces('icant member', commonIn('icant', 'member'))).toBeUndefined();
		expect(indexPieces('%_\\', commonIn())).toBeUndefined();
	});
});

describe("a word's share of a column's values, from pg_stats", () => {
	const stats = {
		values: ['Founder', 'Builder'],
		freqs: [0.3, 0.1],
		histogram: ['Applicant 1.', 'Applicant 20.', 'Applicant 300.', 'Zed']
	};

	it('adds the shares of the common values that contain it to its part of the histogram, case aside', () => {
		expect(shareWith(stats, 'ICANT')).toBeCloseTo(0.6 * 0.75);
		expect(shareWith(stats, 'der')).toBeCloseTo(0.4);
		expect(shareWith(stats, 'e')).toBeCloseTo(0.4 + 0.6 * 0.25);
		expect(shareWith(stats, 'nobody')).toBe(0);
	});

	it('is nothing for a column never analyzed, so nothing is left out', () => {
		expect(shareWith(undefined, 'icant')).toBe(0);
		expect(shareWith({ values: [], freqs: [], histogram: [] }, 'icant')).toBe(0);
	});
});
