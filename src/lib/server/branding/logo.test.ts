import { describe, expect, it } from 'vitest';
import { inspectLogo, looksLikeSvg } from './logo';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('the logo', () => {
	it('is an SVG when its first element is <svg>, after a BOM, declaration, comments and doctype', () => {
		for (const svg of [
			'<svg xmlns="http://www.w3.org/2000/svg"/>',
			'\uFEFF  <?xml version="1.0"?>\n<!-- made by hand --><!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "x">\n<!-- again -->\n<SVG viewBox="0 0 1 1">'
		])
			expect(looksLikeSvg(svg), svg).toBe(true);
		for (const not of [
			'<html><svg/></html>',
			'<!-- unclosed <svg>',
			'<?xml <svg>',
			'svg',
			'',
			'<svgx>',
			'<div><svg/></div>'
		])
			expect(looksLikeSvg(not), not).toBe(false);
	});

	it('tells 512 KiB of comments without an <svg> apart at once (no pattern to backtrack)', () => {
		const comments = '<!---->'.repeat(74_000);
		const started = performance.now();
		expect(looksLikeSvg(comments)).toBe(false);
		expect(looksLikeSvg(`${comments}<svg/>`)).toBe(true);
		// Linear: a few milliseconds; the pattern it replaced took far longer on such input.
		expect(performance.now() - started).toBeLessThan(1_000);
	});

	it('keeps a raster image as sent, sanitises an SVG, and refuses what is neither, from the bytes alone', async () => {
		const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);
		expect(await inspectLogo(png)).toMatchObject({ ok: true, type: 'image/png', bytes: png });
		const svg = await inspectLogo(
			bytes(
				'<svg xmlns="http://www.w3.org/2000/svg" onload="x()"><script>y()</script><rect width="1" height="1"/></svg>'
			)
		);
		expect(svg).toMatchObject({ ok: true, type: 'image/svg+xml' });
		const kept = new TextDecoder().decode((svg as { bytes: Uint8Array }).bytes);
		expect(kept).toContain('<rect');
		expect(kept).not.toMatch(/script|onload/);
		expect(await inspectLogo(bytes('<html><body>hi</body></html>'))).toMatchObject({ ok: false });
		expect(await inspectLogo(new Uint8Array(0))).toBeNull();
	});
});
