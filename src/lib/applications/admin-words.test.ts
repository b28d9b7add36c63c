import { describe, expect, it } from 'vitest';
import { FIELDS, STATES, refusal, type ApplicationStates } from './transitions';
import { actionName, moveRefusal } from './admin-words';

describe('moveRefusal', () => {
	it('refuses exactly what the transitions table refuses, in its English words', () => {
		for (const review of STATES.review)
			for (const allowlist of STATES.allowlist)
				for (const distribution of STATES.distribution) {
					const app: ApplicationStates = { review, allowlist, distribution };
					for (const field of FIELDS)
						for (const to of STATES[field]) expect(moveRefusal(app, field, to)).toBe(refusal(app, field, to));
				}
	});

	it('names the moves as the buttons did', () => {
		expect(actionName('review', 'needs_info')).toBe('Ask for more information');
		expect(actionName('allowlist', 'failed')).toBe('Record failed allowlist');
		expect(actionName('distribution', 'sent')).toBe('Record token sent');
		expect(actionName('review', 'pending')).toBe('Move to pending');
	});
});
