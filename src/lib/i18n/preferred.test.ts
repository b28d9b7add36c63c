import { describe, expect, it } from 'vitest';
import { preferredLocale } from './preferred';

describe('preferredLocale', () => {
	it.each([
		[['es-MX', 'en'], 'es'],
		[['pt-PT'], 'pt-BR'],
		[['pt'], 'pt-BR'],
		[['zh-CN'], 'zh-Hans'],
		[['zh'], 'zh-Hans'],
		[['zh-Hans-HK'], 'zh-Hans'],
		[['ar-EG', 'en-US'], 'ar'],
		[['en-GB', 'es'], 'en'],
		[['de-DE', 'fr', 'es-ES'], 'es']
	] as const)('%j → %s', (languages, expected) => {
		expect(preferredLocale(languages)).toBe(expected);
	});

	it('skips what it does not speak, traditional Chinese included', () => {
		expect(preferredLocale(['zh-TW', 'zh-Hant', 'zh-HK', 'de'])).toBeNull();
		expect(preferredLocale(['zh-TW', 'ar'])).toBe('ar');
		expect(preferredLocale([])).toBeNull();
	});
});
