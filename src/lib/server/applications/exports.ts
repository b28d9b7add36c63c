import { and, asc, desc, eq, sql } from 'drizzle-orm';
import { answerOf, answerText } from '$lib/forms/questions';
import type { Database } from '../db/client';
import { currentForm } from '../forms/versions';
import { applicationEvents, applications, type Application } from '../db/schema';
import { tableFilter, type TableOptions, type TableQuery } from './review-table';

/** Approved applications whose allowlist step is still pending, oldest first: the manual on-chain list. */
export async function pendingAllowlist(db: Database): Promise<Application[]> {
	return db
		.select()
		.from(applications)
		.where(and(eq(applications.review, 'approved'), eq(applications.allowlist, 'pending')))
		.orderBy(asc(applications.createdAt), asc(applications.id));
}

/** RFC 4180 CSV of `pendingAllowlist`, every cell quoted and defused (`toCsv`). */
export function allowlistCsv(rows: Application[]): string {
	return toCsv(
		['address', 'display_name', 'contact', 'application_id', 'applied_at'],
		rows.map((r) => [r.applicantAddress, r.displayName, r.contact, r.id, r.createdAt])
	);
}

/** What a spreadsheet may run as a formula when a cell starts with it (OWASP "CSV injection"). */
const FORMULA_START = '=+\\-@\\t\\r';
// At the start of a cell, or after any character a spreadsheet may split a cell on (a line end or
// a locale's list separator: , ; tab |), a formula start gets an apostrophe in front, which spreadsheets show as text.
const UNSAFE = new RegExp(`(?<=^|[,;\\t|\\r\\n])(?=[${FORMULA_START}])`, 'g');

export type CsvValue = string | number | Date | null | undefined;

/** One RFC 4180 cell, always quoted, with every formula start defused (docs/pages-and-forms.md "CSV exports"). */
export function csvCell(value: CsvValue): string {
	const text = value == null ? '' : value instanceof Date ? value.toISOString() : String(value);
	return `"${text.replace(UNSAFE, "'").replace(/"/g, '""')}"`;
}

/** A CSV file: the header row, then one row per record, CRLF line ends (RFC 4180). */
export function toCsv(header: readonly string[], rows: readonly (readonly CsvValue[])[]): string {
	return [header, ...rows].map((row) => row.map(csvCell).join(',')).join('\r\n') + '\r\n';
}

/** Rows in one export at most; the table's filters narrow it further. */
export const EXPORT_LIMIT = 100_000;

/**
 * CSV of every application matching the review table's filters (its cursor ignored), in its order,
 * with the last tx hash recorded for each; one statement.
 */
export async function applicationsCsv(
	db: Database,
	query: Omit<TableQuery, 'after' | 'before'>,
	options?: TableOptions
): Promise<string> {
	const where = tableFilter(query, true, options);
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
			answers: applications.answers,
			// Qualified by hand: drizzle leaves a one-table select's columns unqualified.
			lastTxHash: sql<
				string | null
			>`(select e.tx_hash from ${applicationEvents} as e where e.application_id = "applications"."id" and e.tx_hash is not null order by e.id desc limit 1)`
		})
		.from(applications)
		.where(where.length ? and(...where) : undefined)
		.orderBy(...order)
		.limit(EXPORT_LIMIT);
	// One column per question of the current form, headed by its label (an answer to a key it no longer has is left out).
	const { questions } = await currentForm(db);
	return toCsv(
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
			'last_tx_hash',
			...questions.map((q) => q.label)
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
			r.lastTxHash ?? '',
			...questions.map((q) => answerText(answerOf(r.answers, q.key)))
		])
	);
}
