import { and, asc, eq } from 'drizzle-orm';
import type { Database } from './db/client';
import { applications, type Application } from './db/schema';

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
