import { describe, expect, it } from 'vitest';
import { acceptedLanguages } from './offer';
import { preferredLocale } from '$lib/i18n/preferred';

describe('acceptedLanguages', () => {
	it('orders tags by q, then as sent, and leaves out q=0 and the wildcard', () => {
		expect(acceptedLanguages('fr;q=0.5, es-MX, en;q=0.8, *;q=0.1, ar;q=0')).toEqual(['es-MX', 'en', 'fr']);
		expect(acceptedLanguages('pt-PT,pt;q=0.9')).toEqual(['pt-PT', 'pt']);
		expect(acceptedLanguages(null)).toEqual([]);
		expect(acceptedLanguages(' ;q=1, ,')).toEqual([]);
	});
	it("gives preferredLocale the browser's order: the first language the portal speaks wins", () => {
		expect(preferredLocale(acceptedLanguages('de-DE,de;q=0.9,zh-CN;q=0.8,en;q=0.7'))).toBe('zh-Hans');
		expect(preferredLocale(acceptedLanguages('en;q=0.2,ar-EG'))).toBe('ar');
		expect(preferredLocale(acceptedLanguages('de'))).toBeNull();
	});
});
