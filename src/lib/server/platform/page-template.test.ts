import { describe, expect, it } from 'vitest';
import { fillFirst } from './page-template';

const template = '<!doctype html><html lang="%lang%" dir="%dir%"><head><title>x</title> %portal.accent%</head>';

describe('fillFirst', () => {
	it('fills each placeholder where the template has it', () => {
		expect(
			fillFirst(template, [
				['%lang%', 'ar'],
				['%dir%', 'rtl'],
				['%portal.accent%', '<style>html:root{}</style>']
			])
		).toBe('<!doctype html><html lang="ar" dir="rtl"><head><title>x</title> <style>html:root{}</style></head>');
	});

	it("fills only the first of each, so the page's own text that spells a placeholder stays as written", () => {
		const page = `${template}<body><p>My name is %lang% %dir% %portal.accent%</p></body>`;
		const filled = fillFirst(page, [
			['%portal.accent%', ''],
			['%lang%', 'es'],
			['%dir%', 'ltr']
		]);
		expect(filled).toBe(
			'<!doctype html><html lang="es" dir="ltr"><head><title>x</title> </head><body><p>My name is %lang% %dir% %portal.accent%</p></body>'
		);
	});

	it('takes values as they are: no $ patterns', () => {
		expect(fillFirst('a %lang% b', [['%lang%', "$& $' $1"]])).toBe("a $& $' $1 b");
	});

	it('leaves a page without the placeholders, or with overlapping ones, whole', () => {
		expect(fillFirst('<p>no marks</p>', [['%lang%', 'en']])).toBe('<p>no marks</p>');
		expect(
			fillFirst('%lang%dir% then %dir%', [
				['%lang%', 'en'],
				['%dir%', 'ltr']
			])
		).toBe('endir% then %dir%');
	});
});
