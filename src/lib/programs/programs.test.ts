import { describe, expect, it } from 'vitest';
import { programInLocale } from './programs';
import { roundTimeText } from './round-time';

describe('a programme in a locale', () => {
	const builders = {
		name: 'Builders',
		description: 'People who ship',
		translations: { ar: { name: 'البنّاؤون' }, es: { name: '  ', description: 'Gente que construye' } }
	};
	it('takes the community’s translation where it gave one, else the original, field by field', () => {
		expect(programInLocale(builders, 'ar')).toEqual({ name: 'البنّاؤون', description: 'People who ship' });
		expect(programInLocale(builders, 'es')).toEqual({ name: 'Builders', description: 'Gente que construye' });
		expect(programInLocale(builders, 'en')).toEqual({ name: 'Builders', description: 'People who ship' });
	});
	it('reads only text from the jsonb (an operator’s SQL may write anything), and no inherited key', () => {
		const odd = { name: 'Odd', translations: JSON.parse('{"ar": {"name": 7}, "es": "x", "pt-BR": null}') as never };
		for (const locale of ['ar', 'es', 'pt-BR', 'toString', '__proto__'])
			expect(programInLocale(odd, locale)).toEqual({ name: 'Odd', description: '' });
	});
});

describe('a round’s time', () => {
	it('is stated in the community’s zone, named, in the reader’s language (across a daylight-saving change)', () => {
		expect(roundTimeText(new Date('2027-03-31T21:59:00Z'), 'Europe/Berlin', 'en')).toBe(
			'31 March 2027 at 23:59 (Europe/Berlin)'
		);
		expect(roundTimeText(new Date('2027-01-31T22:59:00Z'), 'Europe/Berlin', 'en')).toBe(
			'31 January 2027 at 23:59 (Europe/Berlin)'
		);
		expect(roundTimeText(new Date('2027-03-31T21:59:00Z'), 'UTC', 'es')).toContain('(UTC)');
	});
});
