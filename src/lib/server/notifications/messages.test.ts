import { describe, expect, it } from 'vitest';
import { notificationText } from './messages';

const tx = '0x' + 'ab'.repeat(32);

describe('notificationText', () => {
	it('says a decision in the applicant’s words, with the page to open', () => {
		expect(notificationText({ kind: 'application.transitioned', field: 'review', to: 'approved' })).toEqual({
			title: 'Your application was approved',
			body: 'Your application was approved. Welcome: the next steps are on your application’s page.',
			url: '/apply'
		});
	});

	it('carries the reviewers’ request when they ask for more information', () => {
		const text = notificationText({
			kind: 'application.transitioned',
			field: 'review',
			to: 'needs_info',
			reason: 'Please link your project.'
		});
		expect(text.title).toBe('The reviewers ask for more information');
		expect(text.body).toMatch(/^The reviewers ask for more information: Please link your project\. /);
	});

	it('lists each answer asked about with its label, and the day a rejected applicant may apply again', () => {
		const asked = notificationText({
			kind: 'application.transitioned',
			field: 'review',
			to: 'needs_info',
			asks: [
				{ label: 'Motivation', comment: 'Say what you would work on.' },
				{ label: 'City', comment: 'Which city?' }
			]
		});
		expect(asked.body).toBe(
			'The reviewers ask for more information. Motivation: “Say what you would work on.” City: “Which city?” Change your application on its page to answer them.'
		);
		const rejected = notificationText({
			kind: 'application.transitioned',
			field: 'review',
			to: 'rejected',
			reason: 'Too early.',
			reapplyAfter: new Date('2027-03-03T00:00:00Z')
		});
		expect(rejected.body).toMatch(/You may apply again from 3 March 2027\.$/);
	});

	it('names the transaction of an on-chain step, whole in the body and short in the title', () => {
		const text = notificationText({ kind: 'application.transitioned', field: 'allowlist', to: 'added', txHash: tx });
		expect(text.title).toBe('Your address was added to the allowlist (tx 0xabab…abab)');
		expect(text.body).toContain(`(tx ${tx})`);
	});

	it('says a submission and a resubmission were received', () => {
		expect(notificationText({ kind: 'application.submitted' }).title).toBe('We received your application');
		expect(notificationText({ kind: 'application.resubmitted' }).title).toBe('We received your changes');
	});

	it('has words for every state of every field', () => {
		const states = {
			review: ['pending', 'needs_info', 'approved', 'rejected'],
			allowlist: ['pending', 'added', 'failed'],
			distribution: ['pending', 'sent', 'failed']
		} as const;
		for (const [field, list] of Object.entries(states))
			for (const to of list) {
				const text = notificationText({ kind: 'application.transitioned', field: field as 'review', to });
				expect(text.title, `${field}.${to}`).not.toBe('Your application changed');
			}
	});
});
