import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { hasInvisible, invisibleMessage } from './invisible-text';
import { checkAnswer, type Question } from './questions';
import { textField, validate } from '../server/platform/forms';

const REFUSED = [
	['U+202A left-to-right embedding', '\u202a'],
	['U+202B right-to-left embedding', '\u202b'],
	['U+202C pop directional formatting', '\u202c'],
	['U+202D left-to-right override', '\u202d'],
	['U+202E right-to-left override', '\u202e'],
	['U+2066 left-to-right isolate', '\u2066'],
	['U+2067 right-to-left isolate', '\u2067'],
	['U+2068 first strong isolate', '\u2068'],
	['U+2069 pop directional isolate', '\u2069'],
	['U+200E left-to-right mark', '\u200e'],
	['U+200F right-to-left mark', '\u200f'],
	['U+061C Arabic letter mark', '\u061c'],
	['U+200B zero-width space', '\u200b'],
	['U+2060 word joiner', '\u2060'],
	['U+FEFF zero-width no-break space', '\ufeff']
] as const;

describe('invisible and text-direction characters', () => {
	it.each(REFUSED)('refuses %s inside a name', (_, c) => {
		expect(hasInvisible(`Ada${c}Lovelace`)).toBe(true);
		expect(hasInvisible(`${c}moc.elpmaxe@`)).toBe(true);
	});

	it('refuses a joiner or non-joiner that only hides a difference: in Latin text, at an edge, beside a blank', () => {
		for (const s of ['pay\u200cpal', 'pay\u200dpal', '\u200d👩', '👩\u200d', 'a \u200d b', 'مرحبا\u200c', '👩\u200da'])
			expect(hasInvisible(s), JSON.stringify(s)).toBe(true);
	});

	it('keeps real text: Arabic, Hebrew, emoji ZWJ sequences, Persian and Indic joiners', () => {
		for (const s of ['مرحبا بالعالم', 'שלום עולם', '👨‍👩‍👧', '🏳️‍🌈', '👩🏽‍💻', '❤️‍🔥', 'می‌خواهم', 'क्‍ष', 'Ada Lovelace 😀'])
			expect(hasInvisible(s), s).toBe(false);
	});

	it('every text field refuses them with a 400 naming the field, after trimming', () => {
		const schema = v.object({ displayName: textField('Display name', { min: 1, max: 80 }) });
		const refused = validate(schema, { displayName: 'evil\u202egnp.exe' });
		expect(refused.ok).toBe(false);
		if (refused.ok) return;
		expect(refused.status).toBe(400);
		expect(Object.keys(refused.errors)).toEqual(['displayName']);
		expect(refused.errors.displayName).toMatch(/^Display name must not contain invisible/);
		expect(validate(schema, { displayName: 'Ada 👩🏽‍💻' })).toEqual({ ok: true, value: { displayName: 'Ada 👩🏽‍💻' } });
	});

	it('every text answer refuses them with the question label', () => {
		const q: Question = { key: 'why', label: 'Why', type: 'long_text', required: true };
		expect(checkAnswer(q, 'because\u2067I said so')).toEqual({
			error: 'Why must not contain invisible or text-direction control characters (such as U+202E or U+200B).'
		});
		const url: Question = { key: 'site', label: 'Site', type: 'url', required: true };
		expect(checkAnswer(url, 'https://exa\u200bmple.org')).toEqual({ error: invisibleMessage('Site') });
		expect(checkAnswer(q, 'שלום 👨‍👩‍👧')).toEqual({ value: 'שלום 👨‍👩‍👧' });
	});
});
