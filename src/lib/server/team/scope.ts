import { sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { rowsOf } from '../db/rows';
import type { SignedInMember } from '../auth/guards';
import { unknownPath } from '../platform/not-found';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether every application of `ids` is of a programme `member` may act on (issue 59): always for one of
 * every programme. Ids that are not UUIDs are left to the operation's own checks (its 400).
 */
export async function allInScope(db: Database, member: SignedInMember, ids: readonly unknown[]): Promise<boolean> {
	if (!member.programIds) return true;
	const uuids = ids.filter((id): id is string => typeof id === 'string' && UUID.test(id.trim())).map((id) => id.trim());
	if (!uuids.length) return true;
	const rows = rowsOf<{ n: number }>(
		await db.execute(sql`select count(*)::int as n from applications
			where id = any(${`{${uuids.join(',')}}`}::uuid[])
			and not (program_id = any(${`{${member.programIds.join(',')}}`}::int[]))`)
	);
	return Number(rows[0]?.n ?? 0) === 0;
}

/**
 * As allInScope, thrown: an application of another programme is the unknown path's 404 to an admin or
 * reviewer of some programmes only (a page, or an action's answer).
 */
export async function requireInScope(db: Database, member: SignedInMember, ids: readonly unknown[]): Promise<void> {
	if (!(await allInScope(db, member, ids))) unknownPath();
}
