import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { applications, programs, reviewers, reviewSettings, teamMembers } from '../db/schema';
import { m } from '$lib/paraglide/messages';
import type { SignedInMember } from '../auth/guards';
import { invalid, type Outcome } from '../platform/outcome';
import { CACHE_MS } from '../forms/versions';
import type { Roster } from '../platform/roster';

// The portal's reviewers as this process last read them: the contract allows a list one second old at most.
const cache = new WeakMap<Database, { rows: readonly string[]; at: number }>();

/**
 * Every reviewer, the configured ones (`roster.reviewers`, REVIEWER_ADDRESSES) and those added on
 * /admin/reviewers: another process's change or an SQL write takes effect within CACHE_MS, this process's own at once.
 */
export async function reviewerSet(db: Database, roster: Roster, now = Date.now()): Promise<ReadonlySet<string>> {
	const hit = cache.get(db);
	let rows = hit && now - hit.at < CACHE_MS && now >= hit.at ? hit.rows : null;
	if (!rows) {
		rows = (await db.select({ address: reviewers.address }).from(reviewers)).map((r) => r.address);
		cache.set(db, { rows, at: now });
	}
	return rows.length ? new Set([...roster.reviewers, ...rows]) : roster.reviewers;
}

/**
 * The reviewers who may review one application: those of every programme (reviewerSet) and those of the
 * application's own programme (team_members, issue 59), read in the caller's transaction when given one.
 * A reviewer of another programme is not among them.
 */
export async function reviewersForApplication(
	db: Pick<Database, 'select'>,
	applicationId: string,
	everyone: ReadonlySet<string>
): Promise<ReadonlySet<string>> {
	const rows = await db
		.select({ address: teamMembers.address })
		.from(teamMembers)
		.innerJoin(applications, eq(applications.programId, teamMembers.programId))
		.where(and(eq(applications.id, applicationId), eq(teamMembers.role, 'reviewer')));
	return rows.length ? new Set([...everyone, ...rows.map((r) => r.address)]) : everyone;
}

export interface ReviewerEntry {
	address: string;
	fromConfiguration: boolean;
	addedBy: string | null;
	addedAt: Date | null;
}

/** /admin/reviewers' list: configured ones first, then the portal's by address. */
export async function listReviewers(db: Database, roster: Roster): Promise<ReviewerEntry[]> {
	const rows = await db.select().from(reviewers).orderBy(asc(reviewers.address));
	const fixed = [...roster.reviewers].sort();
	return [
		...fixed.map((address) => ({ address, fromConfiguration: true, addedBy: null, addedAt: null })),
		...rows
			.filter((r) => !roster.reviewers.has(r.address))
			.map((r) => ({ address: r.address, fromConfiguration: false, addedBy: r.addedBy, addedAt: r.addedAt }))
	];
}

export const REVIEWER_FIELDS = ['address'] as const;

/** After a change of the team in this process: its next read of the reviewers is fresh. */
export const forgetReviewers = (db: Database) => cache.delete(db);

/** How many reviewers each new application is assigned (0 when never set). */
export async function perApplication(db: Pick<Database, 'select'>): Promise<number> {
	const [row] = await db.select({ n: reviewSettings.perApplication }).from(reviewSettings).limit(1);
	return row?.n ?? 0;
}

/** Each programme's own N (null: the default), oldest first, archived ones left out (issue 57). */
export async function programsPerApplication(db: Pick<Database, 'select'>) {
	return db
		.select({
			slug: programs.slug,
			name: programs.name,
			translations: programs.translations,
			perApplication: programs.perApplication
		})
		.from(programs)
		.where(isNull(programs.archivedAt))
		.orderBy(asc(programs.id));
}

export const SETTINGS_FIELDS = ['perApplication', 'program'] as const;

/**
 * `perApplication` a whole number 0–10, for submissions from now on: every programme's default, or with
 * `program` (a slug) that programme's own, where empty means "the default" again.
 */
export async function saveReviewSettings(
	db: Database,
	admin: SignedInMember,
	input: Record<string, unknown>
): Promise<Outcome<{ perApplication: number | null }>> {
	const raw = typeof input.perApplication === 'string' ? input.perApplication.trim() : null;
	const slug = typeof input.program === 'string' && input.program !== '' ? input.program : null;
	if (raw === null || !(/^(?:[0-9]|10)$/.test(raw) || (slug && raw === '')))
		return invalid({ perApplication: m.admin_per_application_invalid() });
	const n = raw === '' ? null : Number(raw);
	if (slug) {
		const [saved] = await db
			.update(programs)
			.set({ perApplication: n })
			.where(and(eq(programs.slug, slug), isNull(programs.archivedAt)))
			.returning({ id: programs.id });
		if (!saved) return invalid({ program: m.admin_program_unknown() });
		return { ok: true, value: { perApplication: n } };
	}
	await db
		.insert(reviewSettings)
		.values({ id: 1, perApplication: n!, updatedBy: admin.address })
		.onConflictDoUpdate({
			target: reviewSettings.id,
			set: { perApplication: n!, updatedBy: admin.address, updatedAt: sql`now()` }
		});
	return { ok: true, value: { perApplication: n } };
}
