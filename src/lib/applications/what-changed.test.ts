import { describe, expect, it } from 'vitest';
import { whatChanged, type Version } from './what-changed';
import type { Question } from '$lib/forms/questions';

const city: Question = { key: 'city', label: 'City', type: 'short_text', required: true };
const base: Version = {
	displayName: 'Ada',
	motivation: 'I like DAOs a lot',
	contact: '',
	answers: { city: 'Berlin' },
	questions: [city]
};

describe('what a resubmission changed', () => {
	it('marks added and removed words per field and keeps the rest as it was', () => {
		const fields = whatChanged(base, { ...base, motivation: 'I like DAOs very much' }, null);
		const motivation = fields.find((f) => f.key === 'motivation')!;
		expect(motivation.changed).toBe(true);
		expect(motivation.pieces.filter((p) => p.change === 'removed').map((p) => p.text.trim())).toEqual(['a lot']);
		expect(motivation.pieces.filter((p) => p.change === 'added').map((p) => p.text.trim())).toEqual(['very much']);
		expect(fields.filter((f) => !f.changed).map((f) => f.key)).toEqual(['displayName', 'contact', 'city']);
	});

	it('says which asked fields changed and which did not, and keeps markup as text', () => {
		const fields = whatChanged(
			base,
			{ ...base, answers: { city: '<b>Paris</b>' } },
			{ city: 'Which city?', contact: 'Add a handle' }
		);
		expect(fields.find((f) => f.key === 'city')).toMatchObject({ changed: true, asked: 'Which city?' });
		expect(fields.find((f) => f.key === 'contact')).toMatchObject({ changed: false, asked: 'Add a handle' });
		expect(
			fields
				.find((f) => f.key === 'city')!
				.pieces.map((p) => p.text)
				.join('')
		).toContain('<b>Paris</b>');
	});

	it('lists a question the new version no longer asks, its answer removed', () => {
		const fields = whatChanged(base, { ...base, answers: {}, questions: [] }, null);
		expect(fields.find((f) => f.key === 'city')).toMatchObject({ changed: true, pieces: [{ change: 'removed' }] });
	});
});
