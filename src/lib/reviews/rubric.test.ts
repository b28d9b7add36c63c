import { describe, expect, it } from 'vitest';
import { applyRubricStep, isRubricStep, meanOf, parseRubricDraft, readRubricDraft, rubricOf } from './rubric';

const form = (entries: [string, string][]) => {
	const data = new FormData();
	for (const [k, v] of entries) data.append(k, v);
	return data;
};

describe('the rubric editor', () => {
	it('reads criteria in index order and refuses a post whose count does not match what it carries', () => {
		const read = readRubricDraft(
			form([
				['criterionCount', '2'],
				['criteria.1.label', 'Effort'],
				['criteria.1.key', 'effort'],
				['criteria.0.label', 'Fit'],
				['criteria.0.key', 'fit']
			])
		);
		expect(read).toEqual({
			ok: true,
			value: [
				{ key: 'fit', label: 'Fit', help: '' },
				{ key: 'effort', label: 'Effort', help: '' }
			]
		});
		expect(
			readRubricDraft(
				form([
					['criterionCount', '2'],
					['criteria.0.key', 'fit']
				])
			)
		).toMatchObject({
			ok: false,
			errors: { criteria: 'The form arrived incomplete. Reload the page and try again.' }
		});
		expect(
			readRubricDraft(
				form([
					['criterionCount', '1'],
					['criteria.0.label', 'a\u0007b']
				])
			)
		).toMatchObject({
			ok: false,
			errors: { 'criteria.0.label': 'Remove the control characters from this field.' },
			// What was typed comes back with the refusal, so the editor shows it again (issue 61).
			draft: [{ key: '', label: 'a\u0007b', help: '' }]
		});
	});

	it('checks each criterion: key pattern, unique keys, label required and at most 200 characters', () => {
		const checked = parseRubricDraft([
			{ key: 'Fit', label: 'Fit', help: '' },
			{ key: 'ok', label: '', help: '' },
			{ key: 'ok', label: 'x'.repeat(201), help: '' }
		]);
		expect(checked.ok).toBe(false);
		if (checked.ok) return;
		expect(Object.keys(checked.errors).sort()).toEqual([
			'criteria.0.key',
			'criteria.1.label',
			'criteria.2.key',
			'criteria.2.label'
		]);
		expect(parseRubricDraft([{ key: 'fit', label: ' Fit ', help: '' }])).toEqual({
			ok: true,
			value: [{ key: 'fit', label: 'Fit', help: undefined }]
		});
	});

	it('edit steps add, move and remove; a step naming a criterion the draft lacks is not one', () => {
		const two = [
			{ key: 'a', label: 'A', help: '' },
			{ key: 'b', label: 'B', help: '' }
		];
		expect(applyRubricStep(two, 'down:0').map((c) => c.key)).toEqual(['b', 'a']);
		expect(applyRubricStep(two, 'remove:1').map((c) => c.key)).toEqual(['a']);
		expect(applyRubricStep(two, 'add')).toHaveLength(3);
		expect(isRubricStep('up:2', 2)).toBe(false);
		expect(isRubricStep('remove:1', 2)).toBe(true);
	});

	it('a stored rubric that is not one reads as none; a vote’s mean is its criteria’s', () => {
		expect(rubricOf([{ key: 'fit', label: 'Fit' }])).toEqual([{ key: 'fit', label: 'Fit', help: undefined }]);
		expect(rubricOf({ nope: 1 })).toEqual([]);
		expect(meanOf({ fit: 4, effort: 5 })).toBe(4.5);
		expect(meanOf({})).toBeNull();
	});
});
