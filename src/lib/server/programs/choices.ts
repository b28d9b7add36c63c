import { asc } from 'drizzle-orm';
import type { Database } from '../db/client';
import { programs, rounds } from '../db/schema';
import { programInLocale, type ProgramChoice } from '$lib/programs/programs';

export type { ProgramChoice };

/** What a page needs to name a programme in its locale (`programInLocale`) and link to it. */
export const PROGRAM_NAMING = {
	id: programs.id,
	slug: programs.slug,
	name: programs.name,
	translations: programs.translations,
	archivedAt: programs.archivedAt
};

/**
 * Every programme with its rounds, oldest first (two small statements: a community has a few programmes
 * and a round a month at most), for the review table's and insights' programme and round filters, the
 * team and the reviewers' queue. Each named as `locale` reads it (issue 61): the community's translation
 * where it gave one, else the original (`programInLocale`, as the applicant's pages name it).
 */
export async function programChoices(db: Pick<Database, 'select'>, locale: string): Promise<ProgramChoice[]> {
	const [all, windows] = await Promise.all([
		db.select(PROGRAM_NAMING).from(programs).orderBy(asc(programs.id)),
		db
			.select({ id: rounds.id, name: rounds.name, programId: rounds.programId })
			.from(rounds)
			.orderBy(asc(rounds.opensAt), asc(rounds.id))
	]);
	return all.map(({ archivedAt, translations, ...p }) => ({
		...p,
		name: programInLocale({ name: p.name, translations }, locale).name,
		archived: archivedAt !== null,
		rounds: windows.filter((r) => r.programId === p.id).map(({ id, name }) => ({ id, name }))
	}));
}

/**
 * What a page's filters need of `programChoices`: every programme, and the rounds of the chosen one only
 * (the programme named, or the round's; with one programme, its own). A portal with 200 rounds does not
 * send them all with every table page (ProgramFilters draws one programme's rounds).
 */
export function filterChoices(all: ProgramChoice[], program?: string, round?: number): ProgramChoice[] {
	const chosen =
		all.find((p) => p.slug === program) ??
		all.find((p) => p.rounds.some((r) => r.id === round)) ??
		(all.length === 1 ? all[0] : undefined);
	return all.map((p) => (p === chosen ? p : { ...p, rounds: [] }));
}
