import { desc, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { applicationForms, applications, programs } from '../db/schema';
import { rowsOf } from '../db/rows';
import { MEMBERSHIP_SLUG } from '$lib/programs/programs';
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
const cache = new WeakMap<Database, Map<number | 'membership', { form: CurrentForm; at: number }>>();

/**
 * A programme's current form: its version with the highest id, read from the table (another process's or
 * an SQL write takes effect within CACHE_MS). Without `programId`: programme `membership`'s, the one
 * form the portal had before programmes (drizzle/0023), which the pages that know no programme yet mean.
 */
export async function currentForm(db: Database, programId?: number, now = Date.now()): Promise<CurrentForm> {
	const key = programId ?? 'membership';
	let forms = cache.get(db);
	if (!forms) cache.set(db, (forms = new Map<number | 'membership', { form: CurrentForm; at: number }>()));
	const hit = forms.get(key);
	if (hit && now - hit.at < CACHE_MS && now >= hit.at) return hit.form;
	const [row] = await db
		.select({
			id: applicationForms.id,
			questions: applicationForms.questions,
			rubric: applicationForms.rubric,
			eligibility: applicationForms.eligibility
		})
		.from(applicationForms)
		.where(
			eq(
				applicationForms.programId,
				programId ??
					sql`coalesce((select ${programs.id} from ${programs} where ${programs.slug} = ${MEMBERSHIP_SLUG}), ${applicationForms.programId})`
			)
		)
		.orderBy(desc(applicationForms.id))
		.limit(1)
		.prepare('current_form')
		.execute();
	const form: CurrentForm = row ? { ...row, eligibility: row.eligibility ?? null } : BUILT_IN;
	forms.set(key, { form, at: now });
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

// Each application's programme as this process has read it: an application never moves programme.
const programOfApplication = new WeakMap<Database, Map<string, number>>();
/** Applications whose programme a process remembers (a few hundred KiB); beyond it, it starts again. */
const PROGRAM_MEMORY = 10_000;

/**
 * The current form of the programme an application belongs to (its rubric is what a vote is scored
 * against, issue 57), in at most one statement: once this process knows the application's programme,
 * currentForm's cache; otherwise one read of the programme and its newest form together. Null for an
 * unknown application.
 */
export async function currentFormFor(
	db: Database,
	applicationId: string,
	now = Date.now()
): Promise<CurrentForm | null> {
	let known = programOfApplication.get(db);
	if (!known) programOfApplication.set(db, (known = new Map<string, number>()));
	const programId = known.get(applicationId);
	if (programId !== undefined) return currentForm(db, programId, now);
	const [row] = rowsOf<{
		program_id: number;
		id: number | null;
		questions: Question[] | null;
		rubric: unknown[] | null;
		eligibility: unknown;
	}>(
		await db.execute(sql`select a.program_id, f.id, f.questions, f.rubric, f.eligibility
			from ${applications} a left join lateral (
				select id, questions, rubric, eligibility from ${applicationForms}
				where ${applicationForms.programId} = a.program_id order by id desc limit 1
			) f on true
			where a.id = ${applicationId}::uuid`)
	);
	if (!row) return null;
	if (known.size >= PROGRAM_MEMORY) known.clear();
	known.set(applicationId, row.program_id);
	const form: CurrentForm =
		row.id === null
			? BUILT_IN
			: { id: row.id, questions: row.questions ?? [], rubric: row.rubric ?? [], eligibility: row.eligibility ?? null };
	let forms = cache.get(db);
	if (!forms) cache.set(db, (forms = new Map<number | 'membership', { form: CurrentForm; at: number }>()));
	forms.set(row.program_id, { form, at: now });
	return form;
}
