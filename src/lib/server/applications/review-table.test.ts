import { describe, expect, it } from 'vitest';
import { EXCERPT_LENGTH, cursorText, excerptOf, parseTableQuery } from './review-table';

const query = (search: string) => parseTableQuery(new URLSearchParams(search));
const id = '0b6f3c1e-8a1d-4c5e-9f0a-2b3c4d5e6f70';

describe('the /admin query string', () => {
	it('reads filters, a search, the order and a cursor; unknown values fall back to their defaults', () => {
		expect(
			query(
				`review=approved&allowlist=failed&distribution=sent&q=%20Ada%20&sort=newest&after=2026-11-22T03:00:00.123456Z_${id}`
			)
		).toEqual({
			review: 'approved',
			allowlist: 'failed',
			distribution: 'sent',
			q: 'Ada',
			sort: 'newest',
			after: { at: '2026-11-22T03:00:00.123456Z', id },
			before: undefined,
			shortSearch: false
		});
		expect(query('review=bogus&sort=sideways&after=1;drop&before=nope')).toEqual({
			review: undefined,
			allowlist: undefined,
			distribution: undefined,
			q: undefined,
			sort: 'oldest',
			after: undefined,
			before: undefined,
			shortSearch: false
		});
		expect(query('before=end').before).toBe('end');
		expect(cursorText(query(`before=2026-11-22T03:00:00Z_${id}`).before)).toBe(`2026-11-22T03:00:00Z_${id}`);
	});

	it('a programme by its slug and a round by its id; anything else is no filter', () => {
		expect(query('program=builders&round=12')).toMatchObject({ program: 'builders', round: 12 });
		for (const bad of [
			'program=Builders',
			'program=1x',
			`program=${'a'.repeat(41)}`,
			'round=0',
			'round=-1',
			'round=2147483648',
			'round=1.5',
			'round=0x1f'
		])
			expect([query(bad).program, query(bad).round], bad).toEqual([undefined, undefined]);
		expect(query('round=2147483647').round).toBe(2147483647);
	});

	it('a search shorter than 3 characters is ignored and says so; a long one is refused', () => {
		expect(query('q=ab')).toMatchObject({ q: undefined, shortSearch: true });
		expect(query(`q=${'x'.repeat(101)}`).q).toBeUndefined();
	});
});

describe('what a hostile query string cannot get through to the database', () => {
	it.each([
		'2026-02-30T00:00:00Z',
		'2026-13-01T00:00:00Z',
		'2026-11-22T24:00:00Z',
		'0000-01-01T00:00:00Z',
		'2026-11-22T03:60:00Z'
	])('a cursor at an impossible time (%s) is ignored, after and before alike', (at) => {
		expect(query(`after=${at}_${id}`).after).toBeUndefined();
		expect(query(`before=${at}_${id}`).before).toBeUndefined();
	});

	it('a cursor at a real time, a leap day too, is kept', () => {
		expect(query(`after=2024-02-29T23:59:59.999999Z_${id}`).after).toEqual({ at: '2024-02-29T23:59:59.999999Z', id });
		expect(query(`after=0001-01-01T00:00:00Z_${id}`).after).toEqual({ at: '0001-01-01T00:00:00Z', id });
	});

	it('a search drops NUL and other control characters before it reaches the database', () => {
		expect(query('q=ab%00c').q).toBe('abc');
		expect(query('q=%00%01%1f%7f%c2%80').q).toBeUndefined();
		expect(query('q=ab%00')).toMatchObject({ q: undefined, shortSearch: true });
		expect(query('q=Ada%0aLovelace').q).toBe('AdaLovelace');
	});
});

describe("a row's excerpt of the motivation", () => {
	it('is the text with its whitespace as single spaces when it is short enough', () => {
		expect(excerptOf('  I build\n\nbridges\tand   tools  ')).toBe('I build bridges and tools');
		const exact = 'a'.repeat(EXCERPT_LENGTH);
		expect(excerptOf(exact)).toBe(exact);
	});

	it(`is cut after ${EXCERPT_LENGTH} characters with an ellipsis, no space before it`, () => {
		expect(excerptOf('a'.repeat(EXCERPT_LENGTH + 1))).toBe(`${'a'.repeat(EXCERPT_LENGTH)}…`);
		expect(excerptOf(`${'a'.repeat(EXCERPT_LENGTH - 1)} b`)).toBe(`${'a'.repeat(EXCERPT_LENGTH - 1)}…`);
	});

	it('ends with an ellipsis when the motivation goes on past what the database sent, however short its spaces made it', () => {
		const sent = `Line one\n\n   line two ${'x'.repeat(EXCERPT_LENGTH + 1 - 22)}`;
		expect(excerptOf(sent, false)).toBe(`Line one line two ${'x'.repeat(EXCERPT_LENGTH + 1 - 22)}`);
		expect(excerptOf(sent, true)).toBe(`Line one line two ${'x'.repeat(EXCERPT_LENGTH + 1 - 22)}…`);
	});

	it('counts characters, not UTF-16 units: an emoji or a CJK character outside the BMP is never cut in half', () => {
		const emoji = '😀'.repeat(EXCERPT_LENGTH + 1);
		expect(excerptOf(emoji)).toBe(`${'😀'.repeat(EXCERPT_LENGTH)}…`);
		expect(excerptOf('😀'.repeat(EXCERPT_LENGTH))).toBe('😀'.repeat(EXCERPT_LENGTH));
		const mixed = `${'x'.repeat(EXCERPT_LENGTH - 1)}𠀀tail`;
		expect(excerptOf(mixed)).toBe(`${'x'.repeat(EXCERPT_LENGTH - 1)}𠀀…`);
	});
});
