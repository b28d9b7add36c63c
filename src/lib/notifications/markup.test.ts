import { describe, expect, it } from 'vitest';
import { badLink, fillMarkup, markupHtml, markupText, parseMarkup, unknownPlaceholder } from './markup';

const style = { p: 'margin:0', link: 'color:red' };

describe('markup: paragraphs, links, bold and lists, never HTML', () => {
	it('parses the four constructs', () => {
		const markup = parseMarkup('Hello **{name}**.\n\n- one\n- [two](https://example.org/a)\n\nSee {link}.');
		expect(markup).toEqual([
			{ p: [{ text: 'Hello ' }, { text: '{name}', bold: true }, { text: '.' }] },
			{ ul: [[{ text: 'one' }], [{ text: 'two', href: 'https://example.org/a' }]] },
			{ p: [{ text: 'See {link}.' }] }
		]);
		const filled = fillMarkup(markup, { name: 'Ada' });
		expect(markupText(filled, '/es/apply')).toBe(
			'Hello Ada.\n\n• one\n• two (https://example.org/a)\n\nSee /es/apply.'
		);
	});

	it('shows markup and scripts as text, in the values too', () => {
		const filled = fillMarkup(parseMarkup('<script>alert(1)</script> {reason}'), {
			reason: '<b>**x**</b> [y](https://e.org)'
		});
		const html = markupHtml(filled, 'https://portal.example/apply', style);
		expect(html).toBe(
			'<p style="margin:0">&lt;script&gt;alert(1)&lt;/script&gt; &lt;b&gt;**x**&lt;/b&gt; [y](https://e.org)</p>'
		);
	});

	it('keeps links http(s) only', () => {
		expect(badLink('[x](javascript:alert(1))')).toBe('javascript:alert(1');
		expect(badLink('[x](https://ok.example) [y]({link})')).toBeNull();
		const html = markupHtml(parseMarkup('[x](data:text/html,hi)'), '', style);
		expect(html).not.toContain('href');
	});

	// Reading a body is one pass: these took seconds each when every link and bold run was looked for again
	// over the rest of the line (4.8 s for the second shape at 5,000 characters, 57 s at twice the longest
	// body, past the test's time limit); read in one pass, all six take milliseconds.
	it('reads hostile bodies in one pass, as the text they are', () => {
		const long = 2 * 5000;
		for (const body of [
			'['.repeat(long),
			'**a** '.repeat(long / 12) + '['.repeat(long / 2),
			'[a]('.repeat(long / 4),
			('[a](' + 'x'.repeat(16)).repeat(long / 20),
			'*'.repeat(long),
			'**'.repeat(long / 4) + 'x'.repeat(long / 2)
		]) {
			const [block] = parseMarkup(body);
			const text =
				block && 'p' in block ? block.p.map((run) => (run.bold ? `**${run.text}**` : run.text)).join('') : '';
			expect(text).toBe(body.trim());
			expect(badLink(body)).toBeNull();
		}
	});

	it('names an unknown placeholder', () => {
		expect(unknownPlaceholder('Hi {name}, {nmae}')).toBe('{nmae}');
		expect(unknownPlaceholder('{name} {community} {program} {round} {reason} {asks} {reapplyAfter} {link}')).toBeNull();
	});

	it('leaves out what is about a value the move does not have', () => {
		const markup = parseMarkup('Why: {reason}\n\nDone.\n\n- {asks}\n- kept');
		expect(markupText(fillMarkup(markup, {}), '')).toBe('Done.\n\n• kept');
	});
});
