import { and, asc, eq, gt, isNull, lte, or, sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { builtOnce } from '../db/prepared';
import { programs, rounds, type Program } from '../db/schema';
import { MEMBERSHIP_SLUG, PROGRAM_SLUG } from '$lib/programs/programs';

/**
 * Programmes and their rounds as they stand at `now`. Nothing is cached: a round that opens or closes
 * takes effect on the next request of every process, without a restart (each read is one indexed query).
 */

type Reader = Pick<Database, 'select'>;

/** A round as the portal speaks of it (the columns /api/programs and the apply page name). */
export interface RoundWindow {
	id: number;
	name: string;
	opensAt: Date;
	closesAt: Date | null;
}

export const windowColumns = { id: rounds.id, name: rounds.name, opensAt: rounds.opensAt, closesAt: rounds.closesAt };

/** `opens_at <= now < closes_at` (or no closes_at): the contract's "open". */
const openAt = (now: Date) => and(lte(rounds.opensAt, now), or(isNull(rounds.closesAt), gt(rounds.closesAt, now)));

/** The programme's round open at `now`, or null (rounds of one programme never overlap). */
export async function openRoundOf(db: Reader, programId: number, now = new Date()): Promise<RoundWindow | null> {
	const [round] = await db
		.select(windowColumns)
		.from(rounds)
		.where(and(eq(rounds.programId, programId), openAt(now)))
		.orderBy(asc(rounds.opensAt), asc(rounds.id))
		.limit(1);
	return round ?? null;
}

/**
 * The round a new application goes into, read inside its transaction with the programme's row FOR SHARE:
 * an archive (which takes the row FOR UPDATE and counts the live applications, admin.ts) either waits for
 * this submission and counts it, or went first and this one reads `archived`. Null: no open round.
 */
export async function roundForSubmission(
	db: Database,
	programId: number,
	now = new Date()
): Promise<RoundWindow | null | 'archived'> {
	const [row] = await roundForSubmissionStatement(db, { programId, now: now.toISOString() });
	if (!row || row.archivedAt !== null) return 'archived';
	return row.round;
}

// One statement (issue 60): the row locked, and beside it its open round, read as openRoundOf reads it.
// Built once (db/prepared.ts); `now` goes as the text the column's encoder makes of a date.
const roundForSubmissionStatement = builtOnce('round_for_submission', (db) => {
	const now = sql.placeholder('now');
	const open = db
		.select(windowColumns)
		.from(rounds)
		.where(
			and(
				eq(rounds.programId, programs.id),
				and(lte(rounds.opensAt, now), or(isNull(rounds.closesAt), gt(rounds.closesAt, now)))
			)
		)
		.orderBy(asc(rounds.opensAt), asc(rounds.id))
		.limit(1)
		.as('open_round');
	return db
		.select({
			archivedAt: programs.archivedAt,
			round: { id: open.id, name: open.name, opensAt: open.opensAt, closesAt: open.closesAt }
		})
		.from(programs)
		.leftJoinLateral(open, sql`true`)
		.where(eq(programs.id, sql.placeholder('programId')))
		.for('share', { of: programs });
});

/** The programme's next round to open after `now`, or null. */
export async function nextRoundOf(db: Reader, programId: number, now = new Date()): Promise<RoundWindow | null> {
	const [round] = await db
		.select(windowColumns)
		.from(rounds)
		.where(and(eq(rounds.programId, programId), gt(rounds.opensAt, now)))
		.orderBy(asc(rounds.opensAt), asc(rounds.id))
		.limit(1);
	return round ?? null;
}

/** A programme that is not archived, with its open round and its next one. */
export interface ProgramStanding {
	program: Pick<Program, 'id' | 'slug' | 'name' | 'description' | 'translations'>;
	round: RoundWindow | null;
	nextRound: RoundWindow | null;
}

/** A programme as the applicants' pages and /api/programs read it. */
export const programColumns = {
	id: programs.id,
	slug: programs.slug,
	name: programs.name,
	description: programs.description,
	translations: programs.translations
};

/** Each programme's rounds that are open or still to open at the placeholder `now` (few: rounds end). */
export const roundsStillToCome = () =>
	and(eq(rounds.programId, programs.id), or(isNull(rounds.closesAt), gt(rounds.closesAt, sql.placeholder('now'))));

/** The order standingsOf reads the rows in: by programme, each one's rounds soonest first. */
export const standingsOrder = [asc(programs.id), asc(rounds.opensAt), asc(rounds.id)];

function buildStandings(db: Reader) {
	return (
		db
			.select({ program: programColumns, round: windowColumns })
			.from(programs)
			.leftJoin(rounds, roundsStillToCome())
			.where(isNull(programs.archivedAt))
			.orderBy(...standingsOrder)
			// Prepared on a Postgres server (db/prepared.ts): every submission reads it.
			.prepare('program_standings')
	);
}

// Built once per database handle, as upsertMember's (auth/members.ts): building the statement's text was a
// part of /apply's CPU (issue 60, bench/README.md "Figures behind the code").
const standingReads = new WeakMap<Reader, ReturnType<typeof buildStandings>>();

/**
 * Every programme that is not archived, oldest first, each with its open and next round: one query (the
 * programmes joined to their rounds that are open or still to open). `/apply` reads the same with the
 * member's drafts beside them (applications/record.ts standingsAndRecord; issue 60, bench/README.md
 * "Figures behind the code").
 */
export async function programStandings(db: Reader, now = new Date()): Promise<ProgramStanding[]> {
	let read = standingReads.get(db);
	if (!read) standingReads.set(db, (read = buildStandings(db)));
	return standingsOf(await read.execute({ now: now.toISOString() }), now);
}

/** The standings of rows read as programStandings reads them: each programme's rounds still to come, in standingsOrder. */
export function standingsOf(
	rows: readonly { program: ProgramStanding['program']; round: RoundWindow | null }[],
	now: Date
): ProgramStanding[] {
	const standings: ProgramStanding[] = [];
	let last: ProgramStanding | undefined;
	for (const { program, round } of rows) {
		if (last?.program.id !== program.id) standings.push((last = { program, round: null, nextRound: null }));
		if (!round) continue;
		if (round.opensAt.getTime() <= now.getTime()) last.round ??= round;
		else last.nextRound ??= round;
	}
	return standings;
}

/** The programme of `slug` with its open and next round; null when there is none or it is archived (three indexed queries). */
export async function programBySlug(db: Reader, slug: string, now = new Date()): Promise<ProgramStanding | null> {
	if (!PROGRAM_SLUG.test(slug)) return null;
	const [program] = await db
		.select(programColumns)
		.from(programs)
		.where(and(eq(programs.slug, slug), isNull(programs.archivedAt)))
		.limit(1);
	if (!program) return null;
	const [round, nextRound] = await Promise.all([openRoundOf(db, program.id, now), nextRoundOf(db, program.id, now)]);
	return { program, round, nextRound };
}

/** The programmes open at `now`. */
export const openPrograms = async (db: Reader, now = new Date()) =>
	(await programStandings(db, now)).filter((p) => p.round !== null);

/**
 * The programme `/apply` serves (its form, and where a post to `/apply` goes): the one open programme
 * when exactly one is, else `membership` (the programme the portal began with) while it is not
 * archived, else the oldest one not archived; null when there is none. With several open, the page
 * lists them (each at `/apply/<slug>`), and a post to `/apply` still goes to this one.
 */
export const applyProgram = async (db: Reader, now = new Date()): Promise<ProgramStanding | null> =>
	applyProgramOf(await programStandings(db, now));

/** applyProgram's choice among `standings` (programStandings' answer). */
export function applyProgramOf(standings: readonly ProgramStanding[]): ProgramStanding | null {
	const open = standings.filter((p) => p.round !== null);
	if (open.length === 1) return open[0]!;
	return standings.find((p) => p.program.slug === MEMBERSHIP_SLUG) ?? standings[0] ?? null;
}

/** A round as /api/programs writes it. */
const roundJson = (r: RoundWindow | null) =>
	r && { id: r.id, name: r.name, opensAt: r.opensAt.toISOString(), closesAt: r.closesAt?.toISOString() ?? null };

/**
 * The body of GET /api/programs (docs/http.md): every programme not archived, open or not, oldest first,
 * with its names in other locales, and the community's time zone (COMMUNITY_TIME_ZONE) in which its
 * pages state the times.
 */
export async function programsJson(db: Reader, timeZone: string, now = new Date()) {
	return {
		timeZone,
		programs: (await programStandings(db, now)).map(({ program, round, nextRound }) => ({
			slug: program.slug,
			name: program.name,
			description: program.description,
			translations: program.translations,
			open: round !== null,
			round: roundJson(round),
			nextRound: roundJson(nextRound)
		}))
	};
}
