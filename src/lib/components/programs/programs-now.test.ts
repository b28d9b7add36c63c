import { describe, expect, it } from 'vitest';
import { worthShowing, type ProgramJson } from './programs-now';

describe('the home page’s programmes', () => {
	const program = (over: Partial<ProgramJson> = {}): ProgramJson => ({
		slug: 'membership',
		name: 'Member portal',
		description: '',
		translations: {},
		open: true,
		round: { id: 1, name: 'Open', opensAt: '2026-01-01T00:00:00Z', closesAt: null },
		nextRound: null,
		...over
	});
	it('shows nothing while the portal is as before programmes (one open-ended programme, nothing next)', () => {
		expect(worthShowing({ timeZone: 'UTC', programs: [program()] })).toBe(false);
	});
	it('shows a second programme, a closing date, a next round, or a closed programme', () => {
		expect(worthShowing({ timeZone: 'UTC', programs: [program(), program({ slug: 'builders' })] })).toBe(true);
		const closing = program({
			round: { id: 1, name: 'Open', opensAt: '2026-01-01T00:00:00Z', closesAt: '2027-01-01T00:00:00Z' }
		});
		expect(worthShowing({ timeZone: 'UTC', programs: [closing] })).toBe(true);
		const next = { id: 2, name: 'Cohort 2', opensAt: '2027-01-01T00:00:00Z', closesAt: null };
		expect(worthShowing({ timeZone: 'UTC', programs: [program({ nextRound: next })] })).toBe(true);
		expect(worthShowing({ timeZone: 'UTC', programs: [program({ open: false, round: null, nextRound: next })] })).toBe(
			true
		);
	});
});
