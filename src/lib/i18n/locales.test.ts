import { describe, expect, it } from 'vitest';
import * as runtime from '$lib/paraglide/runtime';
import { baseLocale, locales } from './locales';

describe('the locales written in locales.ts', () => {
	it("are project.inlang's, as Paraglide's runtime has them, in the same order", () => {
		expect(locales).toEqual(runtime.locales);
		expect(baseLocale).toBe(runtime.baseLocale);
	});
});
