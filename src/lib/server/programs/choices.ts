import { sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { executePrepared } from '../db/prepared';
import { rowsOf } from '../db/rows';
import { programs, rounds } from '../db/schema';
import { programInLocale, type ProgramChoice, type ProgramTranslations } from '$lib/programs/programs';

export type { ProgramChoice };

/** Every programme with its rounds in the order they open, one row a programme (rounds as a JSON array). */
const CHOICES = sql`select p.id, p.slug, p.name, p.translations, p.archived_at is not null as archived,
	coalesce((select json_agg(json_build_object('id', r.id, 'name', r.name) order by r.opens_at, r.id)
		from ${rounds} r where r.program_id = p.id), '[]'::json) as rounds
	from ${programs} p order by p.id`;

type ChoiceRow = Omit<ProgramChoice, 'rounds'> & {
	translations: ProgramTranslations;
	rounds: ProgramChoice['rounds'] | string;
};

/**
 * Every programme with its rounds, oldest first, for the review table's and insights' programme and round
 * filters, the team, the messages and the reviewers' queue: one prepared statement (it was two, built on
 * every admin page: bench/statements.js --admin). Each named as `locale` reads it (issue 61): the
 * community's translation where it gave one, else the original (`programInLocale`, as the applicant's
 * pages name it).
 */
export async function programChoices(db: Pick<Database, '_'>, locale: string): Promise<ProgramChoice[]> {
	const rows = rowsOf<ChoiceRow>(await executePrepared(db, 'program_choices', CHOICES));
	return rows.map(({ translations, rounds: list, ...p }) => ({
		...p,
		name: programInLocale({ name: p.name, translations }, locale).name,
		// The JSON column as the driver gives it: parsed (postgres.js, PGlite) or as text.
		rounds: typeof list === 'string' ? (JSON.parse(list) as ProgramChoice['rounds']) : list
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
