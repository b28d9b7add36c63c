import { asc } from 'drizzle-orm';
import type { Database } from '../db/client';
import { programs, rounds } from '../db/schema';
import type { ProgramChoice } from '$lib/programs/programs';

export type { ProgramChoice };

/**
 * Every programme with its rounds, oldest first (two small statements: a community has a few programmes
 * and a round a month at most), for the review table's and insights' programme and round filters.
 */
export async function programChoices(db: Pick<Database, 'select'>): Promise<ProgramChoice[]> {
	const [all, windows] = await Promise.all([
		db
			.select({ id: programs.id, slug: programs.slug, name: programs.name, archivedAt: programs.archivedAt })
			.from(programs)
			.orderBy(asc(programs.id)),
		db
			.select({ id: rounds.id, name: rounds.name, programId: rounds.programId })
			.from(rounds)
			.orderBy(asc(rounds.opensAt), asc(rounds.id))
	]);
	return all.map(({ archivedAt, ...p }) => ({
		...p,
		archived: archivedAt !== null,
		rounds: windows.filter((r) => r.programId === p.id).map(({ id, name }) => ({ id, name }))
	}));
}
