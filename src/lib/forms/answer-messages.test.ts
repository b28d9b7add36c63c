import { afterEach, describe, expect, it } from 'vitest';
import { baseLocale, getLocale, overwriteGetLocale, type Locale } from '$lib/paraglide/runtime';
import { dayText } from '$lib/applications/asks';
import { formatWait } from '$lib/server/platform/outcome';
import { checkAnswer, type Question } from './questions';

const original = getLocale;
const inLocale = (locale: Locale) => overwriteGetLocale(() => locale);
afterEach(() => overwriteGetLocale(original));

const age: Question = { key: 'age', label: 'Age', type: 'number', required: true, min: 18, max: 120.5 };

describe('what an applicant reads after a post is in the locale it is asked in', () => {
	it('outside a request (the API) in English, as before', () => {
		expect(getLocale()).toBe(baseLocale);
		expect(checkAnswer(age, '')).toEqual({ error: 'Age is required.' });
		expect(checkAnswer(age, '200')).toEqual({ error: 'Age must be at most 120.5.' });
		expect(formatWait(1 * 3600 + 5 * 60)).toBe('1 hour 5 minutes');
		expect(dayText(new Date(Date.UTC(2027, 2, 3)))).toBe('3 March 2027');
	});

	it('in a page’s locale: its words, its plurals, its numbers and dates', () => {
		inLocale('es');
		expect(checkAnswer(age, '')).toEqual({ error: 'El campo «Age» es obligatorio.' });
		expect(checkAnswer(age, '200')).toEqual({ error: '«Age» debe ser como máximo 120,5.' });
		expect(formatWait(2 * 3600 + 60)).toBe('2 horas y 1 minuto');
		expect(dayText(new Date(Date.UTC(2027, 2, 3)))).toBe('3 de marzo de 2027');
		inLocale('ar');
		expect(formatWait(2)).toBe('ثانيتين');
		expect(formatWait(5 * 60)).toBe('5 دقائق');
	});
});
