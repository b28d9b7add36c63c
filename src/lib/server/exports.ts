import { and, asc, desc, eq, sql } from 'drizzle-orm';
import type { Database } from './db/client';
import { applicationEvents, applications, type Application } from './db/schema';
import { tableFilter, type TableQuery } from './admin-list';

/**
 * One CSV cell: always quoted (RFC 4180), and a value a spreadsheet would run as a formula
 * (starting with = + - @, a tab or a carriage return) prefixed with ' so it stays text.
 */
export function csvCell(value: string): string {
	const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
	return `"${safe.replace(/"/g, '""')}"`;
}

const csvOf = (header: string[], rows: string[][]) =>
	[header, ...rows].map((cells) => cells.map(csvCell).join(',')).join('\r\n') + '\r\n';

/** Approved applications whose allowlist step is still pending, oldest first: the manual on-chain list. */
export async function pendingAllowlist(db: Database): Promise<Application[]> {
	return db
		.select()
		.from(applications)
		.where(and(eq(applications.review, 'approved'), eq(applications.allowlist, 'pending')))
		.orderBy(asc(applications.createdAt), asc(applications.id));
}

/** CSV of `pendingAllowlist`. */
export function allowlistCsv(rows: Application[]): string {
	return csvOf(
		['address', 'display_name', 'contact', 'application_id', 'applied_at'],
		rows.map((r) => [r.applicantAddress, r.displayName, r.contact, r.id, r.createdAt.toISOString()])
	);
}

/** Rows in one export at most; the table's filters narrow it further. */
export const EXPORT_LIMIT = 100_000;

/**
 * CSV of every application matching the review table's filters (its cursor ignored), in its order,
 * with the last tx hash recorded for each; one statement.
 */
export async function applicationsCsv(db: Database, query: Omit<TableQuery, 'after' | 'before'>): Promise<string> {
	const where = tableFilter(query);
	const order =
		query.sort === 'newest'
			? [desc(applications.createdAt), desc(applications.id)]
			: [asc(applications.createdAt), asc(applications.id)];
	const rows = await db
		.select({
			id: applications.id,
			applicantAddress: applications.applicantAddress,
			displayName: applications.displayName,
			contact: applications.contact,
			review: applications.review,
			allowlist: applications.allowlist,
			distribution: applications.distribution,
			createdAt: applications.createdAt,
			updatedAt: applications.updatedAt,
			// Qualified by hand: drizzle leaves a one-table select's columns unqualified.
			lastTxHash: sql<
				string | null
			>`(select e.tx_hash from ${applicationEvents} as e where e.application_id = "applications"."id" and e.tx_hash is not null order by e.id desc limit 1)`
		})
		.from(applications)
		.where(where.length ? and(...where) : undefined)
		.orderBy(...order)
		.limit(EXPORT_LIMIT);
	return csvOf(
		[
			'id',
			'applicant_address',
			'display_name',
			'contact',
			'review',
			'allowlist',
			'distribution',
			'created_at',
			'updated_at',
			'last_tx_hash'
		],
		rows.map((r) => [
			r.id,
			r.applicantAddress,
			r.displayName,
			r.contact,
			r.review,
			r.allowlist,
			r.distribution,
			r.createdAt.toISOString(),
			r.updatedAt.toISOString(),
			r.lastTxHash ?? ''
		])
	);
}
