import { eq, inArray, sql, type SQLWrapper } from 'drizzle-orm';
import type { Database } from '../db/client';
import { applications, programs, rounds } from '../db/schema';
import type { ProgramTranslations } from '$lib/programs/programs';

/** The programme and round an application belongs to, as webhooks and notifications name them. */
export interface ProgramRound {
	program: { slug: string; name: string };
	round: { id: number; name: string };
}

/** A round as a move reads it: where it belongs, and whether a decision in it waits for its release. */
export interface RoundOfMove extends ProgramRound {
	/** The programme with the community's translations of its name, for a page to name it in its locale (webhooks name the original). */
	program: ProgramRound['program'] & { translations: ProgramTranslations };
	/** `together` and not released yet: an approve or reject is held until the release. */
	holds: boolean;
}

type Reader = Pick<Database, 'select'>;

/**
 * The rounds `ids` with their programmes, in one query. `lock` (inside a move's transaction) takes FOR
 * SHARE on the rounds: a release (an UPDATE of the row) waits for the move to commit and then releases what
 * it held, and a move waits for a release under way and then sees it released; no held row is left behind.
 */
export async function roundsOf(db: Reader, ids: readonly number[], lock = false): Promise<Map<number, RoundOfMove>> {
	const unique = [...new Set(ids)];
	if (unique.length === 0) return new Map();
	const query = db
		.select({
			id: rounds.id,
			name: rounds.name,
			releaseMode: rounds.releaseMode,
			releasedAt: rounds.releasedAt,
			slug: programs.slug,
			programName: programs.name,
			translations: programs.translations
		})
		.from(rounds)
		.innerJoin(programs, eq(programs.id, rounds.programId))
		.where(inArray(rounds.id, unique));
	const rows = lock ? await query.for('share', { of: rounds }) : await query;
	return new Map(
		rows.map((r) => [
			r.id,
			{
				program: { slug: r.slug, name: r.programName, translations: r.translations },
				round: { id: r.id, name: r.name },
				holds: r.releaseMode === 'together' && r.releasedAt === null
			}
		])
	);
}

/** The review states a round released together holds from the applicant (needs_info is never held). */
export const HELD_REVIEW_STATES = ['approved', 'rejected'] as const;

/** Whether a move that leaves an application in `review` is held, in `round`. */
export const heldFor = (round: RoundOfMove | undefined, review: string): number | null =>
	round?.holds && (HELD_REVIEW_STATES as readonly string[]).includes(review) ? round.round.id : null;

/** One application's programme and round (for an event about it: a note), or null when no such application. */
export async function placeOfApplication(db: Reader, applicationId: string): Promise<ProgramRound | null> {
	const [row] = await db
		.select({ slug: programs.slug, programName: programs.name, id: rounds.id, name: rounds.name })
		.from(applications)
		.innerJoin(programs, eq(programs.id, applications.programId))
		.innerJoin(rounds, eq(rounds.id, applications.roundId))
		.where(eq(applications.id, applicationId));
	return row ? { program: { slug: row.slug, name: row.programName }, round: { id: row.id, name: row.name } } : null;
}

/**
 * Whether pages name an application's programme and round: the portal holds another programme, or its
 * programme another round. As the migration leaves it (one programme, one open round) nothing is named,
 * and every page reads as before programmes. An SQL condition on a programme and a round (columns of an
 * outer query, or values), for a query that reads the application anyway (applications/record.ts).
 */
export const placeNamedSql = (programId: SQLWrapper | number, roundId: SQLWrapper | number) =>
	sql<boolean>`(exists (select 1 from ${programs} p where p.id <> ${programId})
		or exists (select 1 from ${rounds} r where r.program_id = ${programId} and r.id <> ${roundId}))`.mapWith(
		(x: unknown) => x === true || x === 't'
	);

/** placeIsNamed for one programme and round, in one query. */
export async function placeIsNamed(db: Reader, programId: number, roundId: number): Promise<boolean> {
	const [row] = await db.select({ named: placeNamedSql(programId, roundId) }).from(sql`(select 1) as one`);
	return row?.named === true;
}
