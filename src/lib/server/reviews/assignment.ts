import { sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { rowsOf } from '../db/rows';
import { executePrepared } from '../db/prepared';
import type { Roster } from '../platform/roster';

/** A transaction (or the database) that runs SQL. */
type Executor = Pick<Database, 'execute'>;

// Every change to who reviews what takes this lock first, so that two submissions never both count a
// reviewer's load before either wrote (decision 0040); released when the transaction ends.
const ASSIGNMENT_LOCK = 440_040;

/**
 * Every reviewer, configured (`roster.reviewers`, REVIEWER_ADDRESSES as JSON text: one statement
 * parameter) or added here, as a subquery of one column `address`.
 */
const pool = (roster: Roster) =>
	sql`(select address from reviewers union select jsonb_array_elements_text(${JSON.stringify([...roster.reviewers])}::jsonb))`;

export const lockAssignments = (tx: Executor) => tx.execute(sql`select pg_advisory_xact_lock(${ASSIGNMENT_LOCK})`);

/**
 * N for one application, as SQL: its programme's own `per_application`, else review_settings' (every
 * programme's default), else 0 (issue 57: reviewer settings are per programme).
 */
const perApplicationOf = (applicationId: string) => sql`coalesce(
	(select p.per_application from applications a join programs p on p.id = a.program_id where a.id = ${applicationId}::uuid),
	(select per_application from review_settings limit 1), 0)`;

/** N for one application, read inside the caller's transaction. */
async function perApplicationIn(tx: Executor, applicationId: string): Promise<number> {
	const rows = rowsOf<{ n: number }>(await tx.execute(sql`select ${perApplicationOf(applicationId)} as n`));
	return Number(rows[0]?.n ?? 0);
}

/**
 * Tops a pending application up to `n` assignments of current reviewers (of every programme, or of the
 * application's programme: issue 59; a reviewer of another programme never): those with the fewest open
 * assignments first, ties the longest since their last assignment (never assigned: first), then by
 * address; never its applicant, a reviewer with a declared conflict on it, or one already assigned.
 * The caller holds the assignment lock. Returns the addresses assigned.
 */
export async function topUp(tx: Executor, roster: Roster, applicationId: string, n: number): Promise<string[]> {
	const result = await tx.execute(sql`
		with app as (
			select id, applicant_address, program_id from applications where id = ${applicationId}::uuid and review = 'pending'
		), reviewer_pool as (select address from ${pool(roster)} as everywhere
			union select t.address from team_members t join app on t.program_id = app.program_id where t.role = 'reviewer'
		), current_count as (
			select count(*)::int as c from review_assignments a
			where a.application_id = ${applicationId}::uuid and a.reviewer_address in (select address from reviewer_pool)
		), candidate as (
			-- Open assignments as the database keeps them per reviewer (drizzle/0016, decision 0042).
			select r.address, coalesce(l.open, 0) as open,
				(select max(a.assigned_at) from review_assignments a where a.reviewer_address = r.address) as last
			from reviewer_pool r cross join app left join reviewer_open_assignments l on l.reviewer_address = r.address
			where r.address <> app.applicant_address
				and not exists (select 1 from review_conflicts k where k.application_id = app.id and k.reviewer_address = r.address)
				and not exists (select 1 from review_assignments a where a.application_id = app.id and a.reviewer_address = r.address)
		), chosen as (
			select address from candidate order by open, last nulls first, address
			limit greatest(0, ${n}::int - (select c from current_count))
		)
		insert into review_assignments (application_id, reviewer_address, assigned_by)
		select ${applicationId}::uuid, address, 'auto' from chosen
		returning reviewer_address`);
	return rowsOf<{ reviewer_address: string }>(result).map((r) => r.reviewer_address);
}

/**
 * In the submitting transaction: a new or resubmitted application gets its N reviewers (nothing when N
 * is 0). One round trip reads N and, only when it is above 0, takes the assignment lock; topUp's own
 * statement comes after, so its snapshot sees every assignment committed before the lock was ours.
 */
export async function assignOnSubmit(
	tx: Executor & Pick<Database, '_'>,
	roster: Roster,
	applicationId: string
): Promise<string[]> {
	// Prepared (db/prepared.ts): every submission runs it, one round trip rather than two.
	const rows = rowsOf<{ n: number }>(
		await executePrepared(
			tx,
			'assign_on_submit',
			sql`select n, case when n > 0 then pg_advisory_xact_lock(${ASSIGNMENT_LOCK}) end as locked
			from (select ${perApplicationOf(applicationId)} as n) as setting`
		)
	);
	const n = Number(rows[0]?.n ?? 0);
	if (n === 0) return [];
	return topUp(tx, roster, applicationId, n);
}

/**
 * A reviewer's open assignments (on one application, or on all when `applicationId` is null; with
 * `programId`, on that programme's applications unless they still review every programme) pass on:
 * each is deleted and its application topped up to N by the rule. The caller's transaction.
 */
export async function passOnOpenAssignments(
	tx: Executor,
	roster: Roster,
	reviewer: string,
	applicationId: string | null,
	programId: number | null = null
): Promise<void> {
	await lockAssignments(tx);
	const released = rowsOf<{ application_id: string }>(
		await tx.execute(sql`
			delete from review_assignments a using applications p
			where p.id = a.application_id and p.review = 'pending' and a.reviewer_address = ${reviewer}
			${applicationId ? sql`and a.application_id = ${applicationId}::uuid` : sql``}
			${programId === null ? sql`` : sql`and p.program_id = ${programId}::int and ${reviewer} not in ${pool(roster)}`}
			and not exists (select 1 from application_votes v
				where v.application_id = a.application_id and v.reviewer_address = a.reviewer_address)
			returning a.application_id::text`)
	);
	// Each application by its own programme's N.
	for (const { application_id } of released) {
		const n = await perApplicationIn(tx, application_id);
		if (n > 0) await topUp(tx, roster, application_id, n);
	}
}
