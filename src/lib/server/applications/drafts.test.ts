import { describe, expect, it } from 'vitest';
import { FormFields } from '../platform/forms';
import { draftFieldsOf } from './drafts';

describe('draftFieldsOf', () => {
	it('keeps the apply form’s own fields as typed, leaves out other names and files, and drops NUL (jsonb cannot hold it)', () => {
		const form = new FormFields([
			['displayName', 'Ada\u0000 Lovelace'],
			['motivation', 'Line one\nline two'],
			['answers.city', 'Par\u0000is'],
			['answers.langs', 'en'],
			['answers.langs', 'fr'],
			['answers.bad key', 'x'],
			['answers.cv', new File(['%PDF-'], 'cv.pdf')],
			['role', 'admin']
		]);
		expect(draftFieldsOf(form)).toEqual({
			displayName: 'Ada Lovelace',
			motivation: 'Line one\nline two',
			'answers.city': 'Paris',
			'answers.langs': ['en', 'fr']
		});
	});
});
