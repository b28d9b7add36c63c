import { and, asc, eq, getTableColumns, isNull, sql, type Column } from 'drizzle-orm';
import { builtOnce } from '../db/prepared';
import type { Database } from '../db/client';
import {
	applicationDrafts,
	applicationEvents,
	applicationFiles,
	applicationForms,
	applicationVotes,
	applications,
	programs,
	rounds,
	type ApplicationEvent
} from '../db/schema';
import type { Question } from '$lib/forms/questions';
import type { ProgramTranslations } from '$lib/programs/programs';
import { placeNamedSql } from '../programs/place';
import {
	programColumns,
	roundsStillToCome,
	standingsOf,
	standingsOrder,
	windowColumns,
	type ProgramStanding
} from '../programs/rounds';
import type { StoredFile } from '../files/access';
import { applicantColumns, newestFirst, type ApplicationWithHistory } from './history';
import { eventsBeforeStaged, maskStaged, stagedColumn } from './staged';
import type { DraftFields } from './drafts';
import { isMove } from './own';

/**
 * What a member has sent, as the apply pages read it (docs/pages-and-forms.md "/apply"): their
 * applications with everything the pages show beside each, in one statement, and their drafts in a
 * second sent with it. Before issue 60 the page read the applications, then their history, files, the
 * round names, the other programmes' names, the edit lock and the draft, one statement each (7 against
 * 2 at 8334614: bench/README.md "Figures behind the code").
 */

/** An application's facts the page needs beside it, read with it (never sent to the browser as they are). */
export interface ApplicationFacts {
	/** The decision is held for its round's release (staged.ts): the applicant reads "in review". */
	staged: boolean;
	/** A reviewer voted on it. */
	voted: boolean;
	/** Any audit row but the applicant's own edits: someone moved it. */
	moved: boolean;
	/** Its round is open now. */
	roundOpen: boolean;
	/** The review state as stored (the applicant's view masks a staged one). */
	review: ApplicationWithHistory['review'];
	/** Its round's name, and whether pages name it (placeNamedSql). */
	roundName: string;
	placeNamed: boolean;
	/** Its programme as the pages name it. */
	program: { slug: string; name: string; translations: ProgramTranslations; archived: boolean };
	/** The questions of the form version it answered (null: the built-in fields only). */
	questions: Question[] | null;
	/** Its stored files, by id (what a `file` answer holds). */
	files: StoredFile[];
}

export interface MemberRecord {
	/** Newest first, as the member may read them: a decision held for its round's release shows as in review. */
	applications: (ApplicationWithHistory & { facts: ApplicationFacts })[];
	/** The member's drafts, by programme id. */
	drafts: Map<number, { fields: DraftFields; updatedAt: Date }>;
}

const flag = (x: unknown) => x === true || x === 't';
const jsonOf = (x: unknown): unknown => (typeof x === 'string' ? JSON.parse(x) : x);

/** A row of `columns`' table as `row_to_json` writes it (keyed by column name), mapped as a select maps it. */
function fromJsonRow<T>(columns: Record<string, Column>, json: Record<string, unknown>): T {
	const row: Record<string, unknown> = {};
	for (const [key, column] of Object.entries(columns)) {
		const value = json[column.name];
		row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
	}
	return row as T;
}

const eventColumns = getTableColumns(applicationEvents);
const fileColumns = {
	id: applicationFiles.id,
	name: applicationFiles.name,
	contentType: applicationFiles.contentType,
	bytes: applicationFiles.bytes
};

function buildApplications(db: Database) {
	return (
		db
			.select({
				...applicantColumns,
				staged: stagedColumn,
				events: sql<unknown>`(select coalesce(json_agg(e order by e.id), '[]'::json) from ${applicationEvents} e
					where e.application_id = ${applications.id})`,
				files: sql<unknown>`(select coalesce(json_agg(f), '[]'::json) from ${applicationFiles} f
					where f.application_id = ${applications.id})`,
				voted:
					sql<boolean>`exists (select 1 from ${applicationVotes} v where v.application_id = ${applications.id})`.mapWith(
						flag
					),
				roundName: rounds.name,
				roundOpen:
					sql<boolean>`(${rounds.opensAt} <= now() and (${rounds.closesAt} is null or ${rounds.closesAt} > now()))`.mapWith(
						flag
					),
				placeNamed: placeNamedSql(applications.programId, applications.roundId),
				programSlug: programs.slug,
				programName: programs.name,
				programTranslations: programs.translations,
				programArchivedAt: programs.archivedAt,
				questions: applicationForms.questions
			})
			.from(applications)
			.innerJoin(programs, eq(programs.id, applications.programId))
			.innerJoin(rounds, eq(rounds.id, applications.roundId))
			.leftJoin(applicationForms, eq(applicationForms.id, applications.formId))
			.where(eq(applications.applicantAddress, sql.placeholder('address')))
			.orderBy(newestFirst, asc(applications.id))
			// Prepared on a Postgres server (db/prepared.ts): every /apply load runs it.
			.prepare('member_applications')
	);
}

function buildDrafts(db: Database) {
	return db
		.select({
			programId: applicationDrafts.programId,
			fields: applicationDrafts.fields,
			updatedAt: applicationDrafts.updatedAt
		})
		.from(applicationDrafts)
		.where(eq(applicationDrafts.memberAddress, sql.placeholder('address')))
		.prepare('member_drafts');
}

// Built once per database handle, as upsertMember's (auth/members.ts): building these statements' text
// (drizzle's query builder) on every load was a part of /apply's CPU (bench/README.md "Figures behind the code").
const reads = new WeakMap<
	Database,
	{ applications: ReturnType<typeof buildApplications>; drafts: ReturnType<typeof buildDrafts> }
>();
const readsOf = (db: Database) => {
	let built = reads.get(db);
	if (!built) reads.set(db, (built = { applications: buildApplications(db), drafts: buildDrafts(db) }));
	return built;
};

/** The member's applications with their facts: one statement (each part an indexed look-up per application). */
async function applicationsWithFacts(db: Database, address: string): Promise<MemberRecord['applications']> {
	const rows = await readsOf(db).applications.execute({ address: address.toLowerCase() });
	return rows.map((r) => {
		const {
			staged,
			events: eventsJson,
			files: filesJson,
			voted,
			roundName,
			roundOpen,
			placeNamed,
			programSlug,
			programName,
			programTranslations,
			programArchivedAt,
			questions,
			...application
		} = r;
		const events = (jsonOf(eventsJson) as Record<string, unknown>[]).map((e) =>
			fromJsonRow<ApplicationEvent>(eventColumns, e)
		);
		const facts: ApplicationFacts = {
			staged,
			voted,
			moved: events.some(isMove),
			roundOpen,
			review: application.review,
			roundName,
			placeNamed,
			program: {
				slug: programSlug,
				name: programName,
				translations: programTranslations,
				archived: programArchivedAt !== null
			},
			questions,
			files: (jsonOf(filesJson) as Record<string, unknown>[]).map((f) => fromJsonRow<StoredFile>(fileColumns, f))
		};
		return staged
			? { ...maskStaged(application), events: eventsBeforeStaged(events), facts }
			: { ...application, events, facts };
	});
}

/** The member's drafts, every programme's (a member has one per programme at most). */
async function draftsOf(db: Database, address: string): Promise<MemberRecord['drafts']> {
	const rows = await readsOf(db).drafts.execute({ address });
	return new Map(rows.map(({ programId, ...draft }) => [programId, draft]));
}

/** What the member has sent: two statements, sent together. */
export async function memberRecord(db: Database, address: string): Promise<MemberRecord> {
	const [applications, drafts] = await Promise.all([applicationsWithFacts(db, address), draftsOf(db, address)]);
	return { applications, drafts };
}

/**
 * The programmes as programStandings reads them, each with the member's draft of it beside it (a draft
 * is one programme's, one per member at most: the join adds no row), built once: `/apply` reads its
 * programmes and the drafts in one statement rather than two.
 */
const standingsWithDrafts = builtOnce('member_standings', (db) =>
	db
		.select({
			program: programColumns,
			round: windowColumns,
			draft: { fields: applicationDrafts.fields, updatedAt: applicationDrafts.updatedAt }
		})
		.from(programs)
		.leftJoin(rounds, roundsStillToCome())
		.leftJoin(
			applicationDrafts,
			and(eq(applicationDrafts.programId, programs.id), eq(applicationDrafts.memberAddress, sql.placeholder('address')))
		)
		.where(isNull(programs.archivedAt))
		.orderBy(...standingsOrder)
);

/**
 * `/apply`'s reads: the programmes as they stand at `now` and what the member sent, in two statements sent
 * together (the programmes with the member's drafts, and the applications). The record's drafts are those
 * of the programmes that are not archived: the only ones a form shows.
 */
export async function standingsAndRecord(
	db: Database,
	address: string,
	now = new Date()
): Promise<{ standings: ProgramStanding[]; record: MemberRecord }> {
	const [rows, applications] = await Promise.all([
		standingsWithDrafts(db, { now: now.toISOString(), address: address.toLowerCase() }),
		applicationsWithFacts(db, address)
	]);
	const drafts: MemberRecord['drafts'] = new Map();
	for (const { program, draft } of rows) if (draft) drafts.set(program.id, draft);
	return { standings: standingsOf(rows, now), record: { applications, drafts } };
}

/** The member's applications as they may read them, with their history, without the page's facts: one statement. */
export async function applicationsOf(db: Database, address: string): Promise<ApplicationWithHistory[]> {
	return (await applicationsWithFacts(db, address)).map(({ facts: _facts, ...application }) => application);
}
