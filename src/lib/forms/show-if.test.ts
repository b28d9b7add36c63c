import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { checkAnswers, questionsSchema, shownQuestionKeys, type Question } from './questions';
import {
	blankQuestion,
	draftOf,
	parseDraft,
	previewOf,
	readQuestionsDraft,
	type DraftQuestion
} from './question-editor';
import { meets, showIfCandidate, showIfProblems, shownKeys } from './show-if';

// Conditional questions (docs/application-form.md "Show only if"): the visibility and the checks of a form's conditions.

const FORM: Question[] = [
	{ key: 'role', label: 'Role', type: 'single_choice', required: true, options: ['Student', 'Worker'] },
	{ key: 'school', label: 'School', type: 'short_text', required: true, showIf: { key: 'role', equals: 'Student' } },
	{ key: 'year', label: 'Year', type: 'number', required: true, showIf: { key: 'school', equals: 'MIT' } },
	{ key: 'langs', label: 'Languages', type: 'multiple_choice', required: false, options: ['Rust', 'Go'] },
	{ key: 'rust', label: 'Rust since', type: 'number', required: true, showIf: { key: 'langs', equals: 'Rust' } },
	{ key: 'coc', label: 'Read the code?', type: 'yes_no', required: false },
	{ key: 'why', label: 'Why not?', type: 'long_text', required: true, showIf: { key: 'coc', equals: false } },
	{ key: 'age', label: 'Age', type: 'number', required: false },
	{ key: 'guardian', label: 'Guardian', type: 'short_text', required: true, showIf: { key: 'age', equals: 16 } }
];
const shown = (sent: Record<string, unknown>) => [...shownQuestionKeys(FORM, sent)].sort();

describe('meets and shownKeys', () => {
	it('a value is met by an equal answer, or for several picks by one among them; never by no answer', () => {
		expect(meets('a', 'a')).toBe(true);
		expect(meets('a', 'A')).toBe(false);
		expect(meets(['x', 'a'], 'a')).toBe(true);
		expect(meets(['x'], 'a')).toBe(false);
		expect(meets(false, false)).toBe(true);
		expect(meets(3, 3)).toBe(true);
		expect(meets(3, '3')).toBe(false);
		expect(meets(undefined, false)).toBe(false);
	});

	it('a question without a condition is always shown; one with it follows its target', () => {
		expect(shown({ 'answers.coc': 'on' })).toEqual(['age', 'coc', 'langs', 'role']);
		expect(shown({ 'answers.role': 'Student', 'answers.coc': 'on' })).toContain('school');
		expect(shown({ 'answers.role': 'Worker', 'answers.coc': 'on' })).not.toContain('school');
		expect(shown({ 'answers.langs': ['Go', 'Rust'], 'answers.coc': 'on' })).toContain('rust');
		expect(shown({ 'answers.age': '16', 'answers.coc': 'on' })).toContain('guardian');
		expect(shown({ 'answers.age': '16.0', 'answers.coc': 'on' })).toContain('guardian');
		// An unticked box is "No": the question shown only then appears.
		expect(shown({})).toContain('why');
	});

	it('chains: C is hidden while B is hidden, even if B’s old answer would show C', () => {
		expect(shown({ 'answers.role': 'Student', 'answers.school': 'MIT' })).toContain('year');
		expect(shown({ 'answers.role': 'Worker', 'answers.school': 'MIT' })).not.toContain('year');
	});

	it('an answer that is not valid shows nothing (an option not among them, a number that is not one)', () => {
		expect(shown({ 'answers.role': 'student' })).not.toContain('school');
		expect(shown({ 'answers.age': 'sixteen' })).not.toContain('guardian');
	});

	it('a target that is not earlier never shows the question (the form refuses such a condition anyway)', () => {
		const keys = shownKeys([{ key: 'a', showIf: { key: 'b', equals: 'x' } }, { key: 'b' }], () => 'x');
		expect([...keys]).toEqual(['b']);
	});
});

describe('checkAnswers with conditions', () => {
	const valid = { 'answers.role': 'Worker', 'answers.coc': 'on' };

	it('a hidden required question is not required', () => {
		expect(checkAnswers(FORM, valid)).toEqual({ ok: true, answers: { role: 'Worker', coc: true } });
	});

	it('an answer posted for a hidden question is dropped, even one that would be refused', () => {
		const checked = checkAnswers(FORM, { ...valid, 'answers.school': 'x'.repeat(500), 'answers.rust': 'soon' });
		expect(checked).toEqual({ ok: true, answers: { role: 'Worker', coc: true } });
	});

	it('a shown question is checked as ever: required, and its answer kept', () => {
		const student = { ...valid, 'answers.role': 'Student' };
		expect(checkAnswers(FORM, student)).toEqual({ ok: false, errors: { 'answers.school': 'School is required.' } });
		expect(checkAnswers(FORM, { ...student, 'answers.school': 'MIT', 'answers.year': '2' })).toEqual({
			ok: true,
			answers: { role: 'Student', school: 'MIT', year: 2, coc: true }
		});
	});
});

describe('the form’s conditions are checked when it is saved', () => {
	const base: Question[] = [
		{ key: 'role', label: 'Role', type: 'single_choice', required: true, options: ['Student', 'Worker'] },
		{ key: 'coc', label: 'Code', type: 'yes_no', required: false },
		{ key: 'age', label: 'Age', type: 'number', required: false },
		{ key: 'city', label: 'City', type: 'short_text', required: false }
	];
	const withCond = (showIf: unknown, at = base.length) => [
		...base.slice(0, at),
		{ key: 'x', label: 'X', type: 'short_text', required: true, showIf },
		...base.slice(at)
	];
	const problems = (showIf: unknown, at?: number) => {
		const result = v.safeParse(questionsSchema, withCond(showIf, at));
		return result.success ? [] : result.issues.map((i) => [i.path?.map((p) => p.key).join('.'), i.message]);
	};

	it('accepts a value each type can have, and stores it', () => {
		for (const showIf of [
			{ key: 'role', equals: 'Worker' },
			{ key: 'coc', equals: true },
			{ key: 'age', equals: 18 },
			{ key: 'city', equals: ' Lisbon ' }
		]) {
			const result = v.safeParse(questionsSchema, withCond(showIf));
			if (!result.success) throw new Error(`refused ${JSON.stringify(showIf)}`);
			expect(result.output.at(-1)?.showIf).toEqual(showIf.key === 'city' ? { key: 'city', equals: 'Lisbon' } : showIf);
		}
	});

	it.each([
		['a missing key', { key: 'nope', equals: 'a' }, undefined, '4.showIf.key', /“nope”, which is not a question/],
		['itself', { key: 'x', equals: 'a' }, undefined, '4.showIf.key', /cannot name the question itself/],
		['a later question', { key: 'city', equals: 'a' }, 3, '3.showIf.key', /earlier question; “city” comes after/],
		[
			'a value not among the options',
			{ key: 'role', equals: 'Retired' },
			undefined,
			'4.showIf.equals',
			/options of “Role”/
		],
		['text for a yes/no', { key: 'coc', equals: 'yes' }, undefined, '4.showIf.equals', /Yes or No/],
		['text for a number', { key: 'age', equals: 'ten' }, undefined, '4.showIf.equals', /a number for “Age”/],
		['a number for a text', { key: 'city', equals: 3 }, undefined, '4.showIf.equals', /text for “City”/],
		['an empty value', { key: 'city', equals: '  ' }, undefined, '4.showIf.equals', /1 to 2000/],
		['a control character', { key: 'city', equals: 'a\u0007' }, undefined, '4.showIf.equals', /1 to 2000/],
		['another field', { key: 'city', equals: 'a', also: 1 }, undefined, '4.showIf.also', /must name a question/],
		['not an object', 'city', undefined, '4.showIf', /must name a question/]
	])('%s is refused on its field', (_, showIf, at, path, message) => {
		const found = problems(showIf, at);
		expect(found).toHaveLength(1);
		expect(found[0]![0]).toBe(path);
		expect(found[0]![1]).toMatch(message);
	});

	it('showIfProblems names each refused question by index', () => {
		expect(
			showIfProblems([
				{ key: 'a', label: 'A', type: 'short_text', showIf: { key: 'b', equals: 'x' } },
				{ key: 'b', label: 'B', type: 'short_text', showIf: { key: 'a', equals: 'x' } }
			]).map((p) => [p.index, p.part])
		).toEqual([[0, 'key']]);
	});
});

describe('the editor’s “Show only if” fields', () => {
	const drafts = (...qs: Partial<DraftQuestion>[]) =>
		qs.map((q, i) => ({ ...blankQuestion('short_text'), key: `q${i}`, label: `Q${i}`, ...q }));

	it('typed by the target: true/false for yes/no, a number for a number, else text; no key, no condition', () => {
		expect(showIfCandidate('a', 'true', 'yes_no')).toEqual({ key: 'a', equals: true });
		expect(showIfCandidate('a', 'false', 'yes_no')).toEqual({ key: 'a', equals: false });
		expect(showIfCandidate('a', '2.5', 'number')).toEqual({ key: 'a', equals: 2.5 });
		expect(showIfCandidate('a', 'two', 'number')).toEqual({ key: 'a', equals: 'two' });
		expect(showIfCandidate(' a ', ' 2 ', 'short_text')).toEqual({ key: 'a', equals: '2' });
		expect(showIfCandidate('  ', 'x', 'short_text')).toBeUndefined();
	});

	it('a draft saves its condition, and the stored one reads back into the same fields', () => {
		const parsed = parseDraft(
			drafts(
				{ type: 'yes_no' },
				{ showIfKey: 'q0', showIfEquals: 'false', required: true },
				{ type: 'number' },
				{ showIfKey: 'q2', showIfEquals: '7' }
			)
		);
		expect(parsed.ok && parsed.value.map((q) => q.showIf)).toEqual([
			undefined,
			{ key: 'q0', equals: false },
			undefined,
			{ key: 'q2', equals: 7 }
		]);
		if (!parsed.ok) return;
		expect(draftOf(parsed.value[1]!)).toMatchObject({ showIfKey: 'q0', showIfEquals: 'false' });
		expect(draftOf(parsed.value[0]!)).toMatchObject({ showIfKey: '', showIfEquals: '' });
	});

	it('a refusal sits on the editor’s own field, which the summary names with its question', () => {
		const later = parseDraft(drafts({ showIfKey: 'q1', showIfEquals: 'x' }, {}));
		expect(later.ok).toBe(false);
		if (!later.ok) expect(later.errors['questions.0.showIfKey']).toMatch(/^(?!Question).*earlier question/);
		const option = parseDraft(
			drafts({ type: 'single_choice', options: 'A\nB' }, { showIfKey: 'q0', showIfEquals: 'C' })
		);
		if (!option.ok) expect(option.errors['questions.1.showIfEquals']).toMatch(/^(?!Question).*options of “Q0”/);
		expect(option.ok).toBe(false);
	});

	it('the posted fields are read as any other (showIfKey, showIfEquals), once each', () => {
		const form = new FormData();
		form.set('questionCount', '2');
		form.set('questions.0.key', 'a');
		form.set('questions.1.key', 'b');
		form.set('questions.1.showIfKey', 'a');
		form.set('questions.1.showIfEquals', 'yes');
		const read = readQuestionsDraft(form);
		expect(read.ok && read.value[1]).toMatchObject({ showIfKey: 'a', showIfEquals: 'yes' });
		form.append('questions.1.showIfKey', 'a');
		expect(readQuestionsDraft(form).ok).toBe(false);
		form.delete('questions.1.showIfKey');
		form.set('questions.1.showIfEquals', 'a\u0000');
		expect(readQuestionsDraft(form).ok).toBe(false);
	});

	it('the preview carries a condition that names another question of the draft', () => {
		const preview = previewOf(
			drafts({}, { showIfKey: 'q0', showIfEquals: 'x' }, { showIfKey: 'zz', showIfEquals: 'x' })
		);
		expect(preview.map((q) => q.showIf)).toEqual([undefined, { key: 'q0', equals: 'x' }, undefined]);
	});
});

describe('the editor’s “Show only if” fields, fuzzed', () => {
	const TYPES = ['short_text', 'single_choice', 'multiple_choice', 'number', 'yes_no', 'url', 'long_text'];

	it('any text in showIfKey and showIfEquals is saved as a condition that holds, or refused on a field of its question', () => {
		fc.assert(
			fc.property(
				fc.array(
					fc.record({
						type: fc.constantFrom(...TYPES),
						showIfKey: fc.oneof(fc.constantFrom('', 'q0', 'q1', 'q2', 'q3'), fc.string({ maxLength: 50 })),
						showIfEquals: fc.oneof(
							fc.constantFrom('', 'A', 'B', 'true', 'false', '1', '1e3', ' A '),
							fc.string({ maxLength: 30 }),
							fc.string({ unit: 'binary', maxLength: 30 })
						)
					}),
					{ minLength: 1, maxLength: 4 }
				),
				(qs) => {
					const form = new FormData();
					form.set('questionCount', String(qs.length));
					qs.forEach((q, i) => {
						form.set(`questions.${i}.key`, `q${i}`);
						form.set(`questions.${i}.label`, `Q${i}`);
						form.set(`questions.${i}.type`, q.type);
						form.set(`questions.${i}.options`, 'A\nB');
						form.set(`questions.${i}.showIfKey`, q.showIfKey);
						form.set(`questions.${i}.showIfEquals`, q.showIfEquals);
					});
					const read = readQuestionsDraft(form);
					if (!read.ok) {
						expect(Object.keys(read.errors).every((k) => /^questions\.\d\.showIf(Key|Equals)$/.test(k))).toBe(true);
						return;
					}
					const parsed = parseDraft(read.value);
					if (!parsed.ok) {
						expect(Object.keys(parsed.errors).length).toBeGreaterThan(0);
						for (const [name, message] of Object.entries(parsed.errors)) {
							expect(name).toMatch(/^questions\.\d\.showIf(Key|Equals)$/);
							// The field's own message; the page's summary names its question in the link to it.
							expect(message).not.toMatch(/^Question \d/);
						}
						return;
					}
					// Saved: every condition names an earlier question and a value its answer can have.
					expect(showIfProblems(parsed.value)).toEqual([]);
					parsed.value.forEach((q, i) => {
						if (q.showIf) expect(parsed.value.findIndex((t) => t.key === q.showIf!.key)).toBeLessThan(i);
					});
				}
			),
			{ numRuns: 500 }
		);
	});
});
