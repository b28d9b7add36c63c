import { desc, inArray } from 'drizzle-orm';
import type { Database } from '../db/client';
import { applicationForms } from '../db/schema';
import type { Question } from '$lib/forms/questions';

/** The form applicants answer now: the highest id, or the built-in fields only (id null). */
export interface CurrentForm {
	id: number | null;
	questions: Question[];
	/** Reviewer rubric criteria (`[]` when none); shaped by the reviewers' code. */
	rubric: unknown[];
	/** Who may apply (null: anyone); shaped by the eligibility code. */
	eligibility: unknown;
}

const BUILT_IN: CurrentForm = { id: null, questions: [], rubric: [], eligibility: null };

/** How long a process may answer from its copy: the contract allows a version one second old at most. */
export const CACHE_MS = 1000;
const cache = new WeakMap<Database, { form: CurrentForm; at: number }>();

/** The current form version, read from the table (another process's or an SQL write takes effect within CACHE_MS). */
export async function currentForm(db: Database, now = Date.now()): Promise<CurrentForm> {
	const hit = cache.get(db);
	if (hit && now - hit.at < CACHE_MS && now >= hit.at) return hit.form;
	const [row] = await db
		.select({
			id: applicationForms.id,
			questions: applicationForms.questions,
			rubric: applicationForms.rubric,
			eligibility: applicationForms.eligibility
		})
		.from(applicationForms)
		.orderBy(desc(applicationForms.id))
		.limit(1);
	const form: CurrentForm = row ? { ...row, eligibility: row.eligibility ?? null } : BUILT_IN;
	cache.set(db, { form, at: now });
	return form;
}

/** This process's own save is seen at once by its next read. */
export const forgetCurrentForm = (db: Database) => cache.delete(db);

/** The questions of each given version, as it asked them (a version is never changed). */
export async function formVersions(db: Database, ids: readonly (number | null)[]): Promise<Map<number, Question[]>> {
	const wanted = [...new Set(ids.filter((id): id is number => id !== null))];
	if (!wanted.length) return new Map();
	const rows = await db
		.select({ id: applicationForms.id, questions: applicationForms.questions })
		.from(applicationForms)
		.where(inArray(applicationForms.id, wanted));
	return new Map(rows.map((r) => [r.id, r.questions]));
}
