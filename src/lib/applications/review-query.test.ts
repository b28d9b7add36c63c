import { describe, expect, it } from 'vitest';
import {
	reviewTableHref,
	cappedCount,
	confirmQuestion,
	doneMessage,
	finalConsequence,
	firstPage,
	waited
} from './review-query';

describe('reviewTableHref', () => {
	it('links: the parts that are set, the default order left out', () => {
		expect(reviewTableHref({})).toBe('/admin');
		expect(reviewTableHref({ sort: 'oldest' })).toBe('/admin');
		expect(reviewTableHref({ review: 'approved', q: 'ada lo', sort: 'newest', after: 'c1' })).toBe(
			'/admin?review=approved&q=ada+lo&sort=newest&after=c1'
		);
		expect(reviewTableHref(firstPage({ allowlist: 'failed', before: 'end' }))).toBe('/admin?allowlist=failed');
	});

	it('a form posts its action with the table query, and the redirect returns to that query as posted', () => {
		const action = reviewTableHref({ distribution: 'sent', after: 'x' }, 'bulk');
		expect(action).toBe('/admin?/bulk&distribution=sent&after=x');
		expect(reviewTableHref(new URL(action, 'http://localhost').searchParams)).toBe('/admin?distribution=sent&after=x');
		expect(reviewTableHref(new URLSearchParams('/transition'))).toBe('/admin');
	});
});

describe('counts and waiting times', () => {
	it('caps counts at 1,000 and says how long an application has waited', () => {
		expect(cappedCount(999)).toBe('999');
		expect(cappedCount(1000)).toBe('1,000');
		expect(cappedCount(1001)).toBe('1,000+');
		const now = '2026-11-22T12:00:00.000000Z';
		expect(waited('2026-11-22T11:20:00Z', now)).toBe('40 min');
		expect(waited('2026-11-21T07:00:00Z', now)).toBe('29 h');
		expect(waited('2026-11-10T12:00:00Z', now)).toBe('12 d');
	});
});

describe('doneMessage', () => {
	it('says what was done, and nothing for an unknown move', () => {
		expect(doneMessage('review.approved', 'Ada')).toBe('Approved Ada');
		expect(doneMessage('allowlist.added', '3 applications')).toBe('Recorded 3 applications as added to the allowlist');
		expect(doneMessage('review.<script>', 'Ada')).toBeNull();
		expect(doneMessage(null, 'Ada')).toBeNull();
	});

	it('a done value that names a member of Object.prototype is nothing either (never a 500 or "[object …]")', () => {
		for (const key of ['__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'toLocaleString', 'constructor'])
			expect(doneMessage(key, 'Ada'), key).toBeNull();
		expect(confirmQuestion('__proto__', 'x', 'Ada')).toBe('Move __proto__ of Ada to x?');
	});
});

describe('what a confirm step says a final move does', () => {
	it('names the consequence of each final move, for one applicant or several, and nothing for other moves', () => {
		expect(finalConsequence('review', 'rejected')).toBe(
			'The applicant is told they were not accepted, with the reason, and may apply again.'
		);
		expect(finalConsequence('review', 'approved', 5)).toMatch(/^Each applicant is told they are approved/);
		expect(finalConsequence('allowlist', 'added')).toMatch(/recorded as done, with this transaction hash/);
		expect(finalConsequence('distribution', 'sent')).toMatch(/token distribution is recorded as sent/);
		expect(finalConsequence('review', 'needs_info')).toBe('');
		expect(finalConsequence('review', '__proto__')).toBe('');
		expect(finalConsequence('constructor', '')).toBe('');
	});
});
