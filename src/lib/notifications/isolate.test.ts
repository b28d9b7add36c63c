import { describe, expect, it } from 'vitest';
import { isolate, isolatedPieces, isolatesAsBdi } from './isolate';
import { fillMarkup, markupHtml, parseMarkup } from './markup';

describe('pieces of user text set apart (issue 61)', () => {
	it('marks a piece with FSI … PDI, an empty one not at all, and drops direction controls inside it', () => {
		expect(isolate('Which languages?')).toBe('\u2068Which languages?\u2069');
		expect(isolate('')).toBe('');
		expect(isolate('a\u2069b\u202Ec')).toBe('\u2068abc\u2069');
	});

	it('splits a stored text into its pieces, each set-apart one marked and without its marks', () => {
		expect(isolatedPieces('طلب: \u2068Add a link.\u2069 \u2068Which?\u2069 «\u2068Yes.\u2069»')).toEqual([
			{ text: 'طلب: ', isolated: false },
			{ text: 'Add a link.', isolated: true },
			{ text: ' ', isolated: false },
			{ text: 'Which?', isolated: true },
			{ text: ' «', isolated: false },
			{ text: 'Yes.', isolated: true },
			{ text: '»', isolated: false }
		]);
		expect(isolatedPieces('plain')).toEqual([{ text: 'plain', isolated: false }]);
		expect(isolatedPieces('')).toEqual([{ text: '', isolated: false }]);
	});

	it('turns each piece of escaped HTML into its own <bdi>, in the portal’s words and in a community’s template', () => {
		expect(isolatesAsBdi('\u2068A &lt;b&gt;\u2069 \u2068B?\u2069')).toBe('<bdi>A &lt;b&gt;</bdi> <bdi>B?</bdi>');
		const markup = fillMarkup(parseMarkup('Hola **{name}**: {reason}'), {
			name: isolate('Ana'),
			reason: isolate('Too short.')
		});
		expect(markupHtml(markup, '/apply', { p: '', link: '' })).toBe(
			'<p style="">Hola <strong><bdi>Ana</bdi></strong>: <bdi>Too short.</bdi></p>'
		);
	});
});
