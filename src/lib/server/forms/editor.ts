import { desc } from 'drizzle-orm';
import { parseDraft, type DraftQuestion } from '$lib/question-editor';
import type { Database } from '../db/client';
import { applicationForms } from '../db/schema';
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
	draft: readonly DraftQuestion[]
): Promise<Outcome<{ id: number }>> {
	const parsed = parseDraft(draft);
	if (!parsed.ok) return parsed;
	const id = await db.transaction(async (tx) => {
		const [current] = await tx
			.select({ rubric: applicationForms.rubric, eligibility: applicationForms.eligibility })
			.from(applicationForms)
			.orderBy(desc(applicationForms.id))
			.limit(1);
		const [row] = await tx
			.insert(applicationForms)
			.values({
				createdBy: admin.address,
				questions: parsed.value,
				rubric: current?.rubric ?? [],
				eligibility: current?.eligibility ?? null
			})
			.returning({ id: applicationForms.id });
		return row!.id;
	});
	forgetCurrentForm(db);
	return { ok: true, value: { id } };
}
