import { and, asc, desc, eq, getTableColumns, sql } from 'drizzle-orm';
import { answerOf, answerText, type Answers } from '$lib/forms/questions';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Database, DatabaseHandle } from '../db/client';
import { rowsOf } from '../db/rows';
import { currentForm } from '../forms/versions';
import { applications, programs, type Application } from '../db/schema';
import { exportStream, keyAt, pageWhere } from './export-stream';
import { tableFilter, type TableOptions, type TableQuery } from './review-table';
import { commonWordsFor } from './search-pieces';

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
	return toCsv(ALLOWLIST_HEADER, rows.map(allowlistCells));
}

const ALLOWLIST_HEADER = ['address', 'display_name', 'contact', 'application_id', 'applied_at'];
const allowlistCells = (r: Application): CsvValue[] => [
	r.applicantAddress,
	r.displayName,
	r.contact,
	r.id,
	r.createdAt
];

/** What a spreadsheet may run as a formula when a cell starts with it (OWASP "CSV injection"). */
const FORMULA_START = '=+\\-@\\t\\r';
// At the start of a cell, or after any character a spreadsheet may split a cell on (a line end or
// a locale's list separator: , ; tab |), also after blanks there (importers trim them), a formula
// start gets an apostrophe in front, which spreadsheets show as text. The lookahead comes first, so
// the lookbehind only walks the blanks before a formula start: linear in the cell.
const UNSAFE = new RegExp(`(?=[${FORMULA_START}])(?<=(?:^|[,;\\t|\\r\\n])[\\p{Zs}]*)`, 'gu');

// A cell with nothing to change: no quote, no separator (so the only place a formula could start is the
// beginning), and a first character that is neither a formula start nor a blank. Most cells of an export
// (ids, addresses, dates, states, numbers, names) are such; testing this one character class is far
// cheaper than running UNSAFE's lookbehind on every hyphen of an id or a date.
const PLAIN = new RegExp(`^(?:[^${FORMULA_START}\\p{Zs},;|\\n"][^,;\\t|\\r\\n"]*)?$`, 'u');

export type CsvValue = string | number | Date | null | undefined;

/** One RFC 4180 cell, always quoted, with every formula start defused (docs/pages-and-forms.md "CSV exports"). */
export function csvCell(value: CsvValue): string {
	const text = value == null ? '' : value instanceof Date ? value.toISOString() : String(value);
	if (PLAIN.test(text)) return `"${text}"`;
	return `"${text.replace(UNSAFE, "'").replace(/"/g, '""')}"`;
}

/** A CSV file: the header row, then one row per record, CRLF line ends (RFC 4180). */
export function toCsv(header: readonly string[], rows: readonly (readonly CsvValue[])[]): string {
	return [header, ...rows].map((row) => row.map(csvCell).join(',')).join('\r\n') + '\r\n';
}

/** One CSV record with its CRLF: the unit a streamed export writes. */
export const csvLine = (cells: readonly CsvValue[]): string => cells.map(csvCell).join(',') + '\r\n';

/**
 * CSV of every application matching the review table's filters (its cursor ignored), in its order,
 * with the last tx hash recorded for each: streamed in keyset batches from one snapshot (export-stream.ts).
 */
export async function applicationsCsv(
	handle: DatabaseHandle,
	query: Omit<TableQuery, 'after' | 'before'>,
	options?: TableOptions,
	batchSize?: number
): Promise<ReadableStream<Uint8Array>> {
	const common = await commonWordsFor(handle.db, query.q);
	const filter = tableFilter(query, true, options, common);
	const descending = query.sort === 'newest';
	const direction = descending ? desc : asc;
	// One column per question of the current form, headed by its label (an answer to a key it no longer has is
	// left out): the filtered programme's form (issue 57), else membership's.
	const [program] = query.program
		? await handle.db.select({ id: programs.id }).from(programs).where(eq(programs.slug, query.program))
		: [];
	const { questions } = await currentForm(handle.db, program?.id);
	return exportStream(
		handle,
		{
			head: csvLine([
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
				...questions.map((q) => q.label),
				'motivation',
				'votes_approve',
				'votes_reject',
				'votes_abstain',
				'mean_score',
				'notes'
			]),
			// Run as plain SQL (db.execute), its rows as the driver gives them: drizzle's mapping of each row
			// was a tenth of a 1,000,000-row export's time (bench/history/2026-11-28-export-facts.md).
			read: async (db, page) =>
				rowsOf<ExportRow>(
					await db.execute(
						db
							.select({
								id: applications.id,
								applicant_address: applications.applicantAddress,
								display_name: applications.displayName,
								contact: applications.contact,
								review: applications.review,
								allowlist: applications.allowlist,
								distribution: applications.distribution,
								// As text, as toISOString writes them: no Date made and formatted back per row.
								created: isoMillis(applications.createdAt).as('created'),
								updated: isoMillis(applications.updatedAt).as('updated'),
								answers: applications.answers,
								key_at: keyAt.as('key_at'),
								// Kept on the row by triggers (drizzle/0020): no lookup in the audit log or the notes per row.
								last_tx_hash: applications.lastTxHash,
								// What a reviewer reads and weighs, after the contract's columns and the answers.
								motivation: applications.motivation,
								votes_approve: applications.votesApprove,
								votes_reject: applications.votesReject,
								votes_abstain: applications.votesAbstain,
								votes_mean_score: applications.votesMeanScore,
								notes_count: applications.notesCount
							})
							.from(applications)
							.where(and(...filter, ...pageWhere(page, descending)))
							.orderBy(direction(applications.createdAt), direction(applications.id))
							.limit(page.limit)
					)
				),
			key: (r) => ({ at: r.key_at, id: r.id }),
			line: (r) =>
				csvLine([
					r.id,
					r.applicant_address,
					r.display_name,
					r.contact,
					r.review,
					r.allowlist,
					r.distribution,
					r.created,
					r.updated,
					r.last_tx_hash ?? '',
					...questions.map((q) => answerText(answerOf(r.answers, q.key))),
					r.motivation,
					r.votes_approve,
					r.votes_reject,
					r.votes_abstain,
					r.votes_mean_score === null ? '' : Number(r.votes_mean_score).toFixed(2),
					r.notes_count
				])
		},
		batchSize
	);
}

/** A row of applicationsCsv's read, under its column names (db.execute parses int and jsonb; numeric stays text). */
interface ExportRow {
	id: string;
	applicant_address: string;
	display_name: string;
	contact: string;
	review: string;
	allowlist: string;
	distribution: string;
	created: string;
	updated: string;
	answers: Answers;
	key_at: string;
	last_tx_hash: string | null;
	motivation: string;
	votes_approve: number;
	votes_reject: number;
	votes_abstain: number;
	votes_mean_score: string | null;
	notes_count: number;
}

/** A timestamp as `Date.prototype.toISOString` writes it (UTC, milliseconds). */
const isoMillis = (column: AnyPgColumn) =>
	sql<string>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** `allowlistCsv` of every approved application whose allowlist step is pending, streamed as `applicationsCsv` is. */
export function allowlistCsvStream(handle: DatabaseHandle, batchSize?: number): Promise<ReadableStream<Uint8Array>> {
	return exportStream(
		handle,
		{
			head: csvLine(ALLOWLIST_HEADER),
			read: (db, page) =>
				db
					.select({ ...getTableColumns(applications), keyAt })
					.from(applications)
					.where(and(eq(applications.review, 'approved'), eq(applications.allowlist, 'pending'), ...pageWhere(page)))
					.orderBy(asc(applications.createdAt), asc(applications.id))
					.limit(page.limit),
			key: (r) => ({ at: r.keyAt, id: r.id }),
			line: (r) => csvLine(allowlistCells(r))
		},
		batchSize
	);
}
