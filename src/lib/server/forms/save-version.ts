import { desc, eq, sql } from 'drizzle-orm';
import { parseDraft, type DraftQuestion } from '$lib/forms/question-editor';
import type { Question } from '$lib/forms/questions';
import type { Database } from '../db/client';
import { applicationForms, programs } from '../db/schema';
import { MEMBERSHIP_SLUG } from '$lib/programs/programs';
import type { Outcome } from '../platform/outcome';
import type { SignedInMember } from '../auth/guards';
import { forgetCurrentForm } from './versions';

/**
 * saveFormVersion: a new application_forms row with these questions, the current version's rubric and
 * eligibility carried forward; no row is ever updated, so every submitted application keeps its version.
 */
export async function saveFormVersion(
	db: Database,
	admin: SignedInMember,
	draft: readonly DraftQuestion[],
	programId?: number
): Promise<Outcome<{ id: number }>> {
	const parsed = parseDraft(draft);
	if (!parsed.ok) return parsed;
	return { ok: true, value: await writeFormVersion(db, admin, { questions: parsed.value }, programId) };
}

/** The parts of a form version an editor saves; what it leaves out is carried forward from the current one. */
export interface FormPatch {
	questions?: Question[];
	rubric?: unknown[];
	eligibility?: unknown;
}

/**
 * writeFormVersion: a new application_forms row of the programme (`programId`; without it, programme
 * `membership`, as currentForm reads it), `patch` over that programme's current version (questions, rubric
 * and eligibility each carried forward unless given). Every editor of /admin/form (questions, rubric,
 * eligibility) saves through here, validated beforehand.
 */
export async function writeFormVersion(
	db: Database,
	admin: SignedInMember,
	patch: FormPatch,
	programId?: number
): Promise<{ id: number }> {
	const program =
		programId ??
		sql<number>`coalesce((select ${programs.id} from ${programs} where ${programs.slug} = ${MEMBERSHIP_SLUG}), (select min(${programs.id}) from ${programs}))`;
	const id = await db.transaction(async (tx) => {
		const [current] = await tx
			.select({
				questions: applicationForms.questions,
				rubric: applicationForms.rubric,
				eligibility: applicationForms.eligibility
			})
			.from(applicationForms)
			.where(eq(applicationForms.programId, program))
			.orderBy(desc(applicationForms.id))
			.limit(1);
		const [row] = await tx
			.insert(applicationForms)
			.values({
				programId: program,
				createdBy: admin.address,
				questions: patch.questions ?? current?.questions ?? [],
				rubric: patch.rubric ?? current?.rubric ?? [],
				eligibility: 'eligibility' in patch ? (patch.eligibility ?? null) : (current?.eligibility ?? null)
			})
			.returning({ id: applicationForms.id });
		return row!.id;
	});
	forgetCurrentForm(db);
	return { id };
}
