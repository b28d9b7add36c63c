import { describe, expect, it } from 'vitest';
import { deflateRawSync } from 'node:zlib';
import { detectFileType } from './detect';
import { safeName } from './uploads';

const bytes = (...parts: (string | number[])[]) =>
	Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));

describe('a file type is told from its bytes, never its name', () => {
	it.each([
		['a PDF', bytes('%PDF-1.7\n%âãÏÓ\n1 0 obj'), 'application/pdf'],
		['a PNG', bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), 'image/png'],
		['a JPEG', bytes([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]), 'image/jpeg'],
		['a WebP', bytes('RIFF', [1, 0, 0, 0], 'WEBPVP8 '), 'image/webp'],
		['plain text', Buffer.from('Hello, ünïcode ✓\n'), 'text/plain']
	])('%s', (_, b, type) => expect(detectFileType(b)).toBe(type));

	it.each([
		['a Windows executable', bytes('MZ', [0x90, 0, 3, 0, 0, 0, 4])],
		['an ELF executable', bytes([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0])],
		['HTML', Buffer.from('<!doctype html><script>alert(1)</script>')],
		['HTML after some text', Buffer.from('hello\n<ScRiPt src=//x></script>')],
		['SVG', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="x()"/>')],
		['text with a NUL', Buffer.from('abc\u0000def')],
		['bytes that are not UTF-8', bytes([0xc3, 0x28, 0x41])],
		['nothing', Buffer.alloc(0)],
		['a RIFF that is not WebP', bytes('RIFF', [1, 0, 0, 0], 'WAVEfmt ')]
	])('%s is none of them', (_, b) => expect(detectFileType(b)).toBeNull());

	it('a zip bomb named .pdf is refused at its first bytes, nothing inflated', () => {
		// A local file header (PK\x03\x04) of a deflated run of zeros: refused without reading past byte 5.
		const deflated = deflateRawSync(Buffer.alloc(10 * 1024 * 1024));
		const zip = Buffer.concat([bytes('PK', [3, 4, 20, 0, 0, 0, 8, 0]), deflated]);
		const started = performance.now();
		expect(detectFileType(zip)).toBeNull();
		expect(performance.now() - started).toBeLessThan(50);
	});
});

describe('a file name is made safe', () => {
	it.each([
		['../../etc/passwd', 'passwd'],
		['C:\\\\Users\\\\me\\\\cv.pdf', 'cv.pdf'],
		['cod\u202Efdp.exe', 'codfdp.exe'],
		['"quoted".pdf', 'quoted.pdf'],
		['', 'file'],
		['...', 'file'],
		['a'.repeat(300), 'a'.repeat(200)]
	])('%j → %j', (name, safe) => expect(safeName(name)).toBe(safe));
});
