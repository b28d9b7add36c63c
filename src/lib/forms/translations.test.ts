import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { answerInLocale, checkAnswers, questionInLocale, questionSchema, type Question } from './questions';
import { blankQuestion, draftOf, parseDraft, readQuestionsDraft, type DraftQuestion } from './question-editor';
import { blankTranslations } from './translations';
import { criterionInLocale, parseRubricDraft, readRubricDraft, rubricOf } from '../reviews/rubric';

// docs/translations.md: a question's label, help and options in more locales.
const group: Question = {
	key: 'group',
	label: 'Which working group?',
	help: 'Pick one.',
	type: 'single_choice',
	required: true,
	options: ['Docs', 'Infra', 'Events']
};
const spanish = { label: '¿Qué grupo de trabajo?', help: 'Elige uno.', options: ['Documentación', 'Infra', 'Eventos'] };

const parse = (q: unknown) => v.safeParse(questionSchema, q);
const messages = (q: unknown) => {
	const parsed = parse(q);
	return parsed.success ? [] : parsed.issues.map((i) => [i.path?.map((p) => String(p.key)).join('.'), i.message]);
};

describe('the translations of a question', () => {
	it('are stored as given, trimmed, empty parts and locales left out', () => {
		const parsed = parse({
			...group,
			translations: { es: { ...spanish, label: ` ${spanish.label} ` }, ar: { label: '', help: '' }, 'pt-BR': {} }
		});
		expect(parsed.success && parsed.output.translations).toEqual({ es: spanish });
		const none = parse({ ...group, translations: { es: { label: '' } } });
		expect(none.success && 'translations' in none.output).toBe(false);
	});

	it('refuse a locale the portal does not have, naming it', () => {
		expect(messages({ ...group, translations: { fr: { label: 'Quel groupe ?' } } })).toEqual([
			['translations.fr', expect.stringMatching(/“fr” is not one of the portal’s languages \(es, pt-BR, zh-Hans, ar\)/)]
		]);
		expect(messages({ ...group, translations: { en: { label: 'x' } } })[0]?.[0]).toBe('translations.en');
	});

	it('refuse options that do not match the originals in number, or repeat, on the options field', () => {
		expect(messages({ ...group, translations: { es: { options: ['Documentación', 'Infra'] } } })).toEqual([
			['translations.es.options', 'Options (Español): give 3 lines, one for each option, in the same order.']
		]);
		expect(messages({ ...group, translations: { es: { options: ['A', 'A', 'B'] } } })).toEqual([
			['translations.es.options', 'Options (Español) must differ from each other.']
		]);
	});

	it('keep the originals’ limits and control-character checks, naming the field in its language', () => {
		expect(messages({ ...group, translations: { es: { label: 'x'.repeat(201) } } })).toEqual([
			['translations.es.label', 'Label (Español) must be at most 200 characters.']
		]);
		expect(messages({ ...group, translations: { 'zh-Hans': { help: 'a\u0007b' } } })[0]).toEqual([
			'translations.zh-Hans.help',
			expect.stringMatching(/^Help \(简体中文\) must not contain control characters/)
		]);
		expect(messages({ ...group, translations: { ar: { label: 'a\u202eb' } } })[0]?.[0]).toBe('translations.ar.label');
		expect(messages({ ...group, translations: { es: { options: ['x'.repeat(101), 'b', 'c'] } } })[0]?.[0]).toBe(
			'translations.es.options.0'
		);
	});

	it('keep options only for a choice', () => {
		const parsed = parse({ ...group, type: 'short_text', translations: { es: spanish } });
		expect(parsed.success && parsed.output.translations).toEqual({ es: { label: spanish.label, help: spanish.help } });
	});
});

describe('questionInLocale', () => {
	const translated: Question = { ...group, translations: { es: spanish, 'pt-BR': { label: 'Qual grupo?' } } };

	it('shows the locale’s label, help and option texts; the options stay the originals', () => {
		const es = questionInLocale(translated, 'es');
		expect(es.label).toBe(spanish.label);
		expect(es.help).toBe(spanish.help);
		expect(es.optionTexts).toEqual(spanish.options);
		expect(es.options).toEqual(group.options);
	});

	it('falls back to the originals part by part, and for a locale without a translation', () => {
		const pt = questionInLocale(translated, 'pt-BR');
		expect([pt.label, pt.help, pt.optionTexts]).toEqual(['Qual grupo?', group.help, group.options]);
		const en = questionInLocale(translated, 'en');
		expect([en.label, en.help, en.optionTexts]).toEqual([group.label, group.help, group.options]);
		expect(questionInLocale({ ...group, options: undefined, type: 'short_text' }, 'es').optionTexts).toEqual([]);
	});

	it('a choice answered in Spanish is stored as the original option', () => {
		const es = questionInLocale(translated, 'es');
		// The radio's value is the original: what a Spanish page sends.
		const sent = es.options![es.optionTexts.indexOf('Documentación')];
		expect(checkAnswers([es], { 'answers.group': sent })).toEqual({ ok: true, answers: { group: 'Docs' } });
		// The translated text itself is not an option.
		expect(checkAnswers([es], { 'answers.group': 'Documentación' }).ok).toBe(false);
	});
});

describe('the editor’s translation fields', () => {
	const draft = (d: Partial<DraftQuestion>): DraftQuestion => ({
		...blankQuestion('single_choice'),
		key: 'group',
		label: 'Which working group?',
		options: 'Docs\nInfra\nEvents',
		...d
	});

	it('are read per locale and saved with the question', () => {
		const form = new FormData();
		form.append('questionCount', '1');
		form.append('questions.0.key', 'group');
		form.append('questions.0.label', 'Which working group?');
		form.append('questions.0.type', 'single_choice');
		form.append('questions.0.options', 'Docs\nInfra\nEvents');
		form.append('questions.0.translations.es.label', spanish.label);
		form.append('questions.0.translations.es.options', spanish.options.join('\n'));
		form.append('questions.0.translations.fr.label', 'ignored: not a field of the editor');
		const read = readQuestionsDraft(form);
		expect(read.ok).toBe(true);
		if (!read.ok) return;
		expect(read.value[0]!.translations?.es).toEqual({
			label: spanish.label,
			help: '',
			options: spanish.options.join('\n')
		});
		const parsed = parseDraft(read.value);
		expect(parsed.ok && parsed.value[0]!.translations).toEqual({
			es: { label: spanish.label, options: spanish.options }
		});
		// Shown back in the editor as typed.
		if (parsed.ok) expect(draftOf(parsed.value[0]!).translations?.es.options).toBe(spanish.options.join('\n'));
		form.append('questions.0.translations.es.label', 'twice');
		expect(readQuestionsDraft(form).ok).toBe(false);
	});

	it('a refusal sits on the translation’s own field and names its language; a text refused as read keeps the draft', () => {
		const translations = blankTranslations();
		translations.es.options = 'Documentación\nInfra';
		const parsed = parseDraft([draft({ translations })]);
		expect(parsed.ok).toBe(false);
		if (!parsed.ok)
			expect(parsed.errors).toEqual({
				'questions.0.translations.es.options':
					'Options (Español): give 3 lines, one for each option, in the same order.'
			});
		const control = new FormData();
		control.append('questionCount', '1');
		control.append('questions.0.label', 'Why?');
		control.append('questions.0.translations.ar.label', 'a\u0000b');
		control.append('questions.0.translations.es.label', 'x'.repeat(5000));
		const refused = readQuestionsDraft(control);
		expect(refused).toMatchObject({
			ok: false,
			errors: {
				'questions.0.translations.ar.label': 'Remove the control characters from this field.',
				'questions.0.translations.es.label': 'At most 1000 characters here.'
			}
		});
		// What was typed comes back with the refusal, so the builder shows it again (issue 61).
		if (!refused.ok) {
			expect(refused.draft?.[0]?.label).toBe('Why?');
			expect(refused.draft?.[0]?.translations?.es.label).toBe('x'.repeat(5000));
			expect(refused.draft?.[0]?.translations?.ar.label).toBe('a\u0000b');
		}
	});
});

describe('the translations of a rubric criterion', () => {
	it('are read, checked and stored (label and help), and shown in the locale', () => {
		const form = new FormData();
		form.append('criterionCount', '1');
		form.append('criteria.0.key', 'fit');
		form.append('criteria.0.label', 'Fit');
		form.append('criteria.0.translations.es.label', 'Encaje');
		form.append('criteria.0.translations.es.options', 'ignored');
		const read = readRubricDraft(form);
		expect(read.ok).toBe(true);
		if (!read.ok) return;
		const parsed = parseRubricDraft(read.value);
		expect(parsed).toEqual({
			ok: true,
			value: [{ key: 'fit', label: 'Fit', help: undefined, translations: { es: { label: 'Encaje' } } }]
		});
		if (parsed.ok) {
			expect(criterionInLocale(parsed.value[0]!, 'es').label).toBe('Encaje');
			expect(criterionInLocale(parsed.value[0]!, 'ar').label).toBe('Fit');
		}
		expect(rubricOf([{ key: 'fit', label: 'Fit', translations: { xx: { label: 'y' } } }])).toEqual([]);
	});

	it('refuse a translated label over 200 characters on its field', () => {
		const translations = blankTranslations();
		translations['pt-BR'].label = 'x'.repeat(201);
		const parsed = parseRubricDraft([{ key: 'fit', label: 'Fit', help: '', translations }]);
		expect(parsed.ok).toBe(false);
		if (!parsed.ok)
			expect(parsed.errors).toEqual({
				'criteria.0.translations.pt-BR.label': 'Label (Português (Brasil)) must be at most 200 characters.'
			});
	});
});

describe('answerInLocale', () => {
	const translated: Question = { ...group, translations: { es: spanish } };

	it('reads a stored option back in the locale; other answers as stored', () => {
		const es = questionInLocale(translated, 'es');
		expect(answerInLocale(es, 'Docs')).toBe('Documentación');
		expect(answerInLocale({ ...es, type: 'multiple_choice' }, ['Docs'])).toEqual(['Documentación']);
		expect(answerInLocale(questionInLocale(translated, 'ar'), 'Docs')).toBe('Docs');
		// An option the form no longer has stays as it was stored.
		expect(answerInLocale(es, 'Gone')).toBe('Gone');
		expect(answerInLocale({ ...es, type: 'short_text' }, 'Docs')).toBe('Docs');
		expect(answerInLocale(es, undefined)).toBeUndefined();
	});
});
