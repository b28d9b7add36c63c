import { describe, expect, it } from 'vitest';
import { checkAnswers, fileSize, type Question } from './questions';
import {
	applyEditStep,
	blankQuestion,
	moveQuestion,
	openAfter,
	parseDraft,
	readQuestionsDraft,
	type DraftQuestion
} from './question-editor';

const q = (type: Question['type'], extra: Partial<Question> = {}): Question => ({
	key: 'k',
	label: 'Q',
	type,
	required: true,
	...extra
});
const answer = (question: Question, sent: unknown) => checkAnswers([question], { 'answers.k': sent });

describe('checkAnswers: each answer exactly as the contract says', () => {
	it('short text up to 200 characters on one line, long text up to 5000 with line breaks', () => {
		expect(answer(q('short_text'), '  hi  ')).toEqual({ ok: true, answers: { k: 'hi' } });
		expect(answer(q('short_text'), 'x'.repeat(201)).ok).toBe(false);
		expect(answer(q('short_text'), 'a\nb').ok).toBe(false);
		expect(answer(q('long_text'), 'a\r\nb')).toEqual({ ok: true, answers: { k: 'a\nb' } });
		expect(answer(q('long_text'), 'x'.repeat(5001)).ok).toBe(false);
		expect(answer(q('long_text'), 'a\u0000b').ok).toBe(false);
	});
	it('a choice among the options only; a multiple choice as repeated fields', () => {
		const single = q('single_choice', { options: ['a', 'b'] });
		expect(answer(single, 'a')).toEqual({ ok: true, answers: { k: 'a' } });
		expect(answer(single, 'c').ok).toBe(false);
		expect(answer(single, ['a', 'b']).ok).toBe(false);
		const multi = q('multiple_choice', { options: ['a', 'b', 'c'] });
		expect(answer(multi, ['a', 'c', 'a'])).toEqual({ ok: true, answers: { k: ['a', 'c'] } });
		expect(answer(multi, ['a', 'z']).ok).toBe(false);
	});
	it('a url is http(s) only', () => {
		expect(answer(q('url'), 'https://example.org/x').ok).toBe(true);
		for (const bad of ['javascript:alert(1)', 'ftp://x.org', 'example.org', 'http://'])
			expect(answer(q('url'), bad).ok).toBe(false);
	});
	it('a number is finite and within min/max, stored as a number', () => {
		const n = q('number', { min: 1, max: 10 });
		expect(answer(n, '2.5')).toEqual({ ok: true, answers: { k: 2.5 } });
		for (const bad of ['0', '11', 'NaN', 'Infinity', '1e999', '0x5', '']) expect(answer(n, bad).ok).toBe(false);
	});
	it('yes/no: a ticked box is true, an unticked optional one false, a required one must be ticked', () => {
		expect(answer(q('yes_no'), 'on')).toEqual({ ok: true, answers: { k: true } });
		expect(answer(q('yes_no'), undefined).ok).toBe(false);
		expect(answer(q('yes_no', { required: false }), undefined)).toEqual({ ok: true, answers: { k: false } });
		expect(answer(q('yes_no'), 'yes please').ok).toBe(false);
	});
	it('an unanswered optional question is absent; fields of unknown keys are ignored', () => {
		expect(
			checkAnswers([q('short_text', { required: false })], { 'answers.k': '', 'answers.__proto__': 'x', other: 1 })
		).toEqual({ ok: true, answers: {} });
	});
	it('a file instead of text is refused', () => {
		expect(answer(q('short_text'), new Blob(['x'])).ok).toBe(false);
	});
});

const draft = (d: Partial<DraftQuestion>): DraftQuestion => ({
	...blankQuestion('short_text'),
	key: 'a',
	label: 'A',
	...d
});

describe('the editor: bad input names its field', () => {
	it.each([
		['duplicate key', [draft({}), draft({})], 'questions.1.key'],
		['a choice with one option', [draft({ type: 'single_choice', options: 'only' })], 'questions.0.options'],
		['min above max', [draft({ type: 'number', min: '5', max: '1' })], 'questions.0.min'],
		['a label of 300 characters', [draft({ label: 'x'.repeat(300) })], 'questions.0.label'],
		['a bad key', [draft({ key: '1abc' })], 'questions.0.key'],
		['an unknown type', [draft({ type: 'signature' })], 'questions.0.type'],
		['a file question accepting nothing', [draft({ type: 'file', files: '1', size: '1' })], 'questions.0.accept'],
		['a file type not offered', [draft({ type: 'file', accept: 'text/html' })], 'questions.0.accept'],
		['six files', [draft({ type: 'file', accept: 'application/pdf', files: '6' })], 'questions.0.files'],
		['files of 11 MiB', [draft({ type: 'file', accept: 'application/pdf', size: '11' })], 'questions.0.size'],
		['no file at all', [draft({ type: 'file', accept: 'application/pdf', files: '0' })], 'questions.0.files']
	])('%s', (_, questions, field) => {
		const parsed = parseDraft(questions);
		expect(parsed.ok).toBe(false);
		if (!parsed.ok) expect(Object.keys(parsed.errors)).toContain(field);
	});
	it('a file question keeps its types, count and size (MiB posted, bytes stored)', () => {
		const parsed = parseDraft([draft({ type: 'file', accept: 'image/png\napplication/pdf', files: '2', size: '2.5' })]);
		expect(parsed).toEqual({
			ok: true,
			value: [
				{
					key: 'a',
					label: 'A',
					type: 'file',
					required: false,
					accept: ['application/pdf', 'image/png'],
					maxFiles: 2,
					maxBytes: 2.5 * 1024 * 1024
				}
			]
		});
	});
	it('keeps only what belongs to the type', () => {
		const parsed = parseDraft([draft({ type: 'short_text', options: 'x\ny', min: '1' })]);
		expect(parsed).toEqual({ ok: true, value: [{ key: 'a', label: 'A', type: 'short_text', required: false }] });
	});
	it('reads posted fields in index order and refuses a field sent twice', () => {
		const form = new FormData();
		form.append('questions.1.key', 'b');
		form.append('questions.0.key', 'a');
		form.append('questions.0.required', 'on');
		form.append('questionCount', '2');
		const read = readQuestionsDraft(form);
		expect(read.ok && read.value.map((d) => [d.key, d.required])).toEqual([
			['a', true],
			['b', false]
		]);
		form.append('questions.0.key', 'c');
		expect(readQuestionsDraft(form).ok).toBe(false);
		// A post that lost its fields (or says another count) is refused, never an empty form.
		const empty = new FormData();
		expect(readQuestionsDraft(empty).ok).toBe(false);
		empty.append('questionCount', '0');
		expect(readQuestionsDraft(empty).ok).toBe(true);
		empty.append('questions.0.label', 'a\u0000b');
		expect(readQuestionsDraft(empty).ok).toBe(false);
	});
	it('moves, retires and adds', () => {
		const three = [draft({ key: 'a' }), draft({ key: 'b' }), draft({ key: 'c' })];
		expect(applyEditStep(three, 'up:1', '').map((d) => d.key)).toEqual(['b', 'a', 'c']);
		expect(applyEditStep(three, 'down:2', '').map((d) => d.key)).toEqual(['a', 'b', 'c']);
		expect(applyEditStep(three, 'retire:0', '').map((d) => d.key)).toEqual(['b', 'c']);
		expect(applyEditStep(three, 'add', 'yes_no').at(-1)?.type).toBe('yes_no');
	});
	it('moves a question by drag and drop, and the open question stays open wherever it goes', () => {
		const four = ['a', 'b', 'c', 'd'].map((key) => draft({ key }));
		expect(moveQuestion(four, 0, 2).map((d) => d.key)).toEqual(['b', 'c', 'a', 'd']);
		expect(moveQuestion(four, 3, 0).map((d) => d.key)).toEqual(['d', 'a', 'b', 'c']);
		expect(moveQuestion(four, 1, 4).map((d) => d.key)).toEqual(['a', 'b', 'c', 'd']);
		expect(moveQuestion(four, -1, 0).map((d) => d.key)).toEqual(['a', 'b', 'c', 'd']);
		const ops = ['up:0', 'up:2', 'down:1', 'down:3', 'retire:0', 'retire:2', 'move:0:3', 'move:3:1', 'move:1:1'];
		for (const op of ops)
			for (const open of [null, 0, 1, 2, 3]) {
				const [verb, a, b] = op.split(':');
				const next = verb === 'move' ? moveQuestion(four, Number(a), Number(b)) : applyEditStep(four, op, '');
				const where = open === null ? -1 : next.indexOf(four[open]!);
				expect(openAfter(open, op, next.length), `${op} with ${open} open`).toBe(where < 0 ? null : where);
			}
		expect(openAfter(1, 'add', 5)).toBe(4);
	});
});

describe('fileSize', () => {
	it('a small file in bytes or kilobytes, never “0 MiB”; in the reader’s language', () => {
		expect(fileSize(293, 'en')).toBe('293 bytes');
		expect(fileSize(12_345, 'en')).toBe('12.3 kB');
		expect(fileSize(2_500_000, 'en')).toBe('2.5 MB');
		expect(fileSize(293, 'ar')).toContain('بايت');
	});
});
