import { parseRubricDraft, type DraftCriterion } from '$lib/reviews/rubric';
import type { Database } from '../db/client';
import type { SignedInMember } from '../auth/guards';
import { writeFormVersion } from '../forms/save-version';
import type { Outcome } from '../platform/outcome';

/**
 * saveRubric: the reviewers' rubric checked (keys unique, labels 1–200, help 0–500, at most 20) and saved as
 * a new form version, the questions and eligibility carried forward; votes already cast keep their scores.
 */
export async function saveRubric(
	db: Database,
	admin: SignedInMember,
	draft: readonly DraftCriterion[],
	programId?: number
): Promise<Outcome<{ id: number }>> {
	const parsed = parseRubricDraft(draft);
	if (!parsed.ok) return parsed;
	return { ok: true, value: await writeFormVersion(db, admin, { rubric: parsed.value }, programId) };
}
