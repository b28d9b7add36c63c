import { describe, expect, it } from 'vitest';
import { notificationText } from './notification-text';

const tx = '0x' + 'ab'.repeat(32);
/** A piece of user text as a body stores it: set apart by FSI … PDI (issue 61). */
const i = (s: string) => `\u2068${s}\u2069`;

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
		expect(text.body).toMatch(/^The reviewers ask for more information: \u2068Please link your project\.\u2069 /);
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
			`The reviewers ask for more information. ${i('Motivation')}: “${i('Say what you would work on.')}” ${i('City')}: “${i('Which city?')}” Change your application on its page to answer them.`
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

	it('is written in the recipient’s language, with its punctuation, dates and the built-in fields’ labels', () => {
		const change = {
			kind: 'application.transitioned',
			field: 'review',
			to: 'needs_info',
			reason: 'Falta el enlace.',
			asks: [
				{ key: 'motivation', label: 'Motivation', comment: '¿En qué trabajarías?' },
				{ key: 'city', label: 'Ciudad', comment: '¿Cuál?' }
			]
		} as const;
		expect(notificationText(change, 'es')).toEqual({
			title: 'Los revisores piden más información',
			body: `Los revisores piden más información: ${i('Falta el enlace.')} Motivación: «${i('¿En qué trabajarías?')}» ${i('Ciudad')}: «${i('¿Cuál?')}» Modifica tu solicitud en su página para responderles.`,
			url: '/apply'
		});
		const zh = notificationText(
			{ kind: 'application.transitioned', field: 'allowlist', to: 'added', txHash: tx },
			'zh-Hans'
		);
		expect(zh.title).toBe('您的地址已加入允许名单（交易 0xabab…abab）');
		expect(zh.body).toBe(`您的地址已加入允许名单。（交易 ${tx}）您的地址现在可以参与了。`);
		const rejected = {
			kind: 'application.transitioned',
			field: 'review',
			to: 'rejected',
			reapplyAfter: new Date('2027-03-03T00:00:00Z')
		} as const;
		expect(notificationText(rejected, 'es').body).toMatch(/a partir del 3 de marzo de 2027\.$/);
		expect(notificationText(rejected, 'pt-BR').body).toMatch(/a partir de 3 de março de 2027\.$/);
		const ar = notificationText(rejected, 'ar');
		expect(ar.title).toBe('لم يُقبل طلبك');
		expect(ar.body).toContain('يمكنك التقديم مجددًا اعتبارًا من');
		expect(notificationText({ kind: 'application.submitted' }, 'ar').title).toBe('تلقّينا طلبك');
	});

	it('keeps English as it was when no locale is given or the locale is English', () => {
		const change = {
			kind: 'application.transitioned',
			field: 'review',
			to: 'needs_info',
			asks: [{ key: 'displayName', label: 'Display name', comment: 'Your full name?' }]
		} as const;
		expect(notificationText(change, 'en')).toEqual(notificationText(change));
		expect(notificationText(change).body).toBe(
			`The reviewers ask for more information. Display name: “${i('Your full name?')}” Change your application on its page to answer them.`
		);
	});

	it("names an asked question in the recipient's locale where the community translated it, else as asked", () => {
		const change = {
			kind: 'application.transitioned',
			field: 'review',
			to: 'needs_info',
			asks: [{ key: 'city', label: 'City', labels: { es: 'Ciudad', ar: 'المدينة' }, comment: '¿Cuál?' }]
		} as const;
		expect(notificationText(change, 'es').body).toContain(`${i('Ciudad')}: «${i('¿Cuál?')}»`);
		expect(notificationText(change, 'ar').body).toContain('المدينة');
		expect(notificationText(change, 'pt-BR').body).toContain('City');
		expect(notificationText(change, 'en').body).toContain(`${i('City')}: “${i('¿Cuál?')}”`);
	});
});
