import type { Database } from '../db/client';
import type { SignedInMember } from '../auth/guards';
import type { StoredFile } from '../files/access';
import { currentForm } from '../forms/versions';
import { eligibilityBanner } from '../eligibility/banner';
import type { RpcEndpoint } from '../platform/endpoints';
import type { ProgramStanding } from '../programs/rounds';
import { roundClosedNotice, roundTimeText } from '../programs/community-zone';
import type { Question } from '$lib/forms/questions';
import { asSeenByApplicant, type ApplicantApplication } from './history';
import { applyStanding } from './may-apply';
import { draftAnswers, draftText } from './drafts';
import { editLock, LIVE_REVIEW_STATES, lockWords } from './own';
import type { MemberRecord } from './record';

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

type Sent = MemberRecord['applications'][number];

/** The newest application to each programme but `except`, its programme named (from the record: no statement). */
function othersOf(mine: readonly Sent[], except: number | null): OtherApplication[] {
	const newest = new Map<number, Sent>();
	for (const a of mine) if (a.programId !== except && !newest.has(a.programId)) newest.set(a.programId, a);
	return [...newest.entries()]
		.sort(([a], [b]) => a - b)
		.map(([, a]) => ({
			program: { slug: a.facts.program.slug, name: a.facts.program.name, translations: a.facts.program.translations },
			review: a.review,
			archived: a.facts.program.archived
		}));
}

/**
 * The rounds of `mine` (one programme's applications) by id, for their histories to name: only when the portal
 * has another programme or this one another round (placeNamedSql); as the migration leaves it, nothing.
 */
function namesOfRounds(mine: readonly Sent[]): Record<number, string> {
	if (!mine[0]?.facts.placeNamed) return {};
	return Object.fromEntries(mine.map((a) => [a.roundId, a.facts.roundName]));
}

/** The questions of the versions `mine` answered, by version id (the member's answers are shown with their labels). */
function versionsOf(mine: readonly Sent[]): Record<number, Question[]> {
	const versions: Record<number, Question[]> = {};
	for (const a of mine) if (a.formId !== null && a.facts.questions) versions[a.formId] = a.facts.questions;
	return versions;
}

/** The files of `mine`'s `file` answers (issue 58), by id. */
function filesOf(mine: readonly Sent[]): Record<string, StoredFile> {
	return Object.fromEntries(mine.flatMap((a) => a.facts.files.map((f) => [f.id, f])));
}

/** The applications as their applicant reads them: without the facts read beside them (record.ts). */
const asSent = (mine: readonly Sent[], address: string) =>
	asSeenByApplicant(
		mine.map(({ facts: _facts, ...application }) => application),
		address
	);

/**
 * Whether the member may edit their live application to the programme now, and why not: the rule of
 * own.ts (editLock) on the facts read with the applications.
 */
function lockOf(mine: readonly Sent[]) {
	const live = mine.find((a) => LIVE_REVIEW_STATES.includes(a.facts.review));
	return editLock(live ? live.facts : null);
}

/**
 * One programme's apply form, the member's standing in it, and their applications to it (newest first),
 * from `record` (memberRecord): no statement of its own but the current form's (cached for a second).
 */
export async function applyFormData(
	db: Database,
	member: SignedInMember,
	record: MemberRecord,
	target: ProgramStanding | null,
	timeZone: string,
	polygon: RpcEndpoint | null
) {
	const programId = target?.program.id ?? null;
	const mine = record.applications.filter((a) => a.programId === programId);
	const applications = asSent(mine, member.address);
	const form = await currentForm(db, target?.program.id);
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
		eligibility: standing.may !== 'not' ? await eligibilityBanner(polygon, form, member.address) : null,
		address: member.address,
		applications,
		questions: form.questions,
		askedBy: versionsOf(mine),
		roundNames: namesOfRounds(mine),
		others: othersOf(record.applications, programId),
		files: filesOf(mine),
		...ownData(record, mine, programId)
	};
}

/**
 * The applicant's own application (issue 58): their draft for the programme (only theirs, never anyone
 * else's page), and whether they may edit their application now (`editLocked`: why not, in words).
 */
function ownData(record: MemberRecord, mine: readonly Sent[], programId: number | null) {
	if (programId === null) return { draft: null, editable: false, editLocked: null };
	const lock = lockOf(mine);
	const draft = record.drafts.get(programId) ?? null;
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
export function applyListData(
	member: SignedInMember,
	record: MemberRecord,
	open: readonly ProgramStanding[],
	timeZone: string
) {
	const all = record.applications;
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
		others: othersOf(
			all.filter((a) => !openIds.has(a.programId)),
			null
		)
	};
}
