import { inArray } from 'drizzle-orm';
import { filesOf } from '../files/access';
import type { Database } from '../db/client';
import { programs } from '../db/schema';
import type { SignedInMember } from '../auth/guards';
import { currentForm, formVersions } from '../forms/versions';
import { eligibilityBanner } from '../eligibility/banner';
import type { ProgramStanding } from '../programs/rounds';
import { roundClosedNotice, roundTimeText } from '../programs/community-zone';
import { placeIsNamed, roundsOf } from '../programs/place';
import { PROGRAM_NAMING } from '../programs/choices';
import { asSeenByApplicant, type ApplicantApplication } from './history';
import { applyStanding } from './may-apply';
import { applicationsOf } from './submit';
import { draftAnswers, draftOf, draftText } from './drafts';
import { editLockOf, lockWords } from './own';

/**
 * What the apply pages show (docs/pages-and-forms.md "/apply"): one programme's form with the member's
 * applications to it (`/apply/<slug>`, and `/apply` while at most one programme is open), or the list of
 * the open programmes (`/apply` while several are). Both name the member's applications to the other
 * programmes, each with its latest state, so that nothing they sent is out of sight.
 */

/** A programme as the pages name it (its translations are read in the page's locale). */
type ProgramName = Pick<ProgramStanding['program'], 'slug' | 'name' | 'translations'>;

/** The member's latest application to another programme; `open` when its page can be visited (not archived). */
export interface OtherApplication {
	program: ProgramName;
	review: ApplicantApplication['review'];
	archived: boolean;
}

/** The newest application to each programme but `except`, the programmes named (two queries at most). */
async function othersOf(
	db: Database,
	mine: ApplicantApplication[],
	except: number | null
): Promise<OtherApplication[]> {
	const newest = new Map<number, ApplicantApplication>();
	for (const a of mine) if (a.programId !== except && !newest.has(a.programId)) newest.set(a.programId, a);
	if (!newest.size) return [];
	const named = await db
		.select(PROGRAM_NAMING)
		.from(programs)
		.where(inArray(programs.id, [...newest.keys()]))
		.orderBy(programs.id);
	return named.map(({ id, archivedAt, ...program }) => ({
		program,
		review: newest.get(id)!.review,
		archived: archivedAt !== null
	}));
}

/**
 * The rounds of `mine` (one programme's applications) by id, for their histories to name: only when the portal
 * has another programme or this one another round (placeIsNamed); as the migration leaves it, nothing.
 */
async function namesOfRounds(db: Database, mine: ApplicantApplication[]): Promise<Record<number, string>> {
	const first = mine[0];
	if (!first || !(await placeIsNamed(db, first.programId, first.roundId))) return {};
	const places = await roundsOf(
		db,
		mine.map((a) => a.roundId)
	);
	return Object.fromEntries([...places].map(([id, place]) => [id, place.round.name]));
}

/** One programme's apply form, the member's standing in it, and their applications to it (newest first). */
export async function applyFormData(
	db: Database,
	member: SignedInMember,
	target: ProgramStanding | null,
	timeZone: string
) {
	const all = asSeenByApplicant(await applicationsOf(db, member.address), member.address);
	const programId = target?.program.id ?? null;
	const applications = all.filter((a) => a.programId === programId);
	// The reads below need only the applications: sent together, so the page waits for one round trip of
	// them rather than one after another (issue 60, bench/README.md "Figures behind the code").
	const [form, roundNames, versions, others, files, own] = await Promise.all([
		currentForm(db, target?.program.id),
		namesOfRounds(db, applications),
		// The member's own answers are shown with the labels of the version they answered.
		formVersions(
			db,
			applications.map((a) => a.formId)
		),
		othersOf(db, all, programId),
		// The files of the member's own `file` answers (issue 58), by id.
		filesOf(
			db,
			applications.map((a) => a.id)
		),
		ownData(db, member, programId)
	]);
	// Whether the member qualifies, before they write anything (only when a form could be shown to them).
	// The rule submitApplication applies (may-apply.ts); a rejection that named a day shows that day.
	const standing = applyStanding(applications);
	const reapplyFrom = standing.may === 'not' && standing.reason === 'wait' ? standing.until : null;
	// A new application needs an open round (a resubmission does not): the page says when the next opens.
	const closed =
		standing.may === 'apply' && !target?.round ? roundClosedNotice(target?.nextRound ?? null, timeZone) : null;
	return {
		view: 'form' as const,
		program: target && {
			slug: target.program.slug,
			name: target.program.name,
			translations: target.program.translations,
			closes: target.round?.closesAt ? roundTimeText(target.round.closesAt, timeZone) : null
		},
		reapplyFrom,
		mayApply: closed ? ('not' as const) : standing.may,
		closed,
		eligibility: standing.may !== 'not' ? await eligibilityBanner(form, member.address) : null,
		address: member.address,
		applications,
		questions: form.questions,
		askedBy: Object.fromEntries(versions),
		roundNames,
		others,
		files,
		...own
	};
}

/**
 * The applicant's own application (issue 58): their draft for the programme (only theirs, never anyone
 * else's page), and whether they may edit their application now (`editLocked`: why not, in words).
 */
async function ownData(db: Database, member: SignedInMember, programId: number | null) {
	if (programId === null) return { draft: null, editable: false, editLocked: null };
	const [lock, draft] = await Promise.all([
		editLockOf(db, member.address, programId),
		draftOf(db, member.address, programId)
	]);
	return {
		draft: draft && {
			fields: {
				displayName: draftText(draft.fields, 'displayName'),
				motivation: draftText(draft.fields, 'motivation'),
				contact: draftText(draft.fields, 'contact')
			},
			answers: draftAnswers(draft.fields),
			updatedAt: draft.updatedAt
		},
		editable: lock === null,
		editLocked: lock === null || lock === 'none' ? null : lockWords(lock)
	};
}

/** An open programme as the list at `/apply` shows it. */
export interface OpenProgram {
	program: ProgramName & Pick<ProgramStanding['program'], 'description'>;
	/** When its round closes, in the reader's language and the community's zone (named); null: no closing date. */
	closes: string | null;
	/** The member's latest application to it, if any. */
	review: ApplicantApplication['review'] | null;
}

/** `/apply` while several programmes are open (`open`, programStandings' open ones): the list, and the member's applications to the others. */
export async function applyListData(
	db: Database,
	member: SignedInMember,
	open: readonly ProgramStanding[],
	timeZone: string
) {
	const all = asSeenByApplicant(await applicationsOf(db, member.address), member.address);
	const latest = (programId: number) => all.find((a) => a.programId === programId)?.review ?? null;
	const openIds = new Set(open.map((s) => s.program.id));
	return {
		view: 'list' as const,
		address: member.address,
		open: open.map(({ program, round }): OpenProgram => ({
			program: {
				slug: program.slug,
				name: program.name,
				description: program.description,
				translations: program.translations
			},
			closes: round?.closesAt ? roundTimeText(round.closesAt, timeZone) : null,
			review: latest(program.id)
		})),
		others: await othersOf(
			db,
			all.filter((a) => !openIds.has(a.programId)),
			null
		)
	};
}
