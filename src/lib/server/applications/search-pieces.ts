import { sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { rowsOf } from '../db/rows';

/**
 * The review table's search without the words most rows contain (#46).
 *
 * pg_trgm's GIN scan of `ilike '%icant 777.%'` reads the posting list of every trigram of the pattern;
 * when every name contains "Applicant", four of them list all 1,000,000 rows (about 300 pages each),
 * while " 777." alone reads a few dozen. So a word that the planner's own statistics say most values
 * of a column contain is left out of that column's index condition, and the whole search is checked
 * (`strpos`, which no index serves) on the few rows the rest of it finds. The rows are the same.
 */

/** The searched columns, as pg_stats names them (the answers by their index's expression). */
export const SEARCH_COLUMNS = {
	applicant_address: { table: 'applications', column: 'applicant_address' },
	display_name: { table: 'applications', column: 'display_name' },
	contact: { table: 'applications', column: 'contact' },
	answers: { table: 'applications_answers_trgm_idx', column: 'answers_search_text' }
} as const;
export type SearchColumn = keyof typeof SEARCH_COLUMNS;

/** Whether a word is in so many of a column's values that its trigrams would cost more than they sort out. */
export type CommonWord = (column: SearchColumn, word: string) => boolean;

/** A word found in at least this share of a column's values is left out of its index condition. */
export const COMMON_SHARE = 0.2;
/** pg_trgm's words: runs of letters and digits; split() puts them at the odd indexes. */
const WORD = /([\p{L}\p{N}]+)/u;
const WORDS = /[\p{L}\p{N}]+/gu;

/**
 * The parts of `q` to look up in a column's trigram index: `q` cut at its common words, each part
 * keeping the characters around it (a space before "777" tells pg_trgm a word starts there). Only
 * parts with a word of three characters or more are kept, as shorter ones give pg_trgm nothing to
 * narrow by. Undefined when nothing was left out or nothing useful is left: then `q` is looked up whole.
 */
export function indexPieces(q: string, isCommon: (word: string) => boolean): string[] | undefined {
	const pieces: string[] = [];
	let piece = '';
	let useful = false;
	let dropped = false;
	const close = () => {
		if (useful) pieces.push(piece);
		piece = '';
		useful = false;
	};
	q.split(WORD).forEach((token, i) => {
		const word = i % 2 === 1;
		if (word && isCommon(token)) {
			dropped = true;
			close();
			return;
		}
		piece += token;
		if (word && [...token].length >= 3) useful = true;
	});
	close();
	return dropped && pieces.length ? pieces : undefined;
}

/** What pg_stats keeps of a column: its most common values with their shares, and the histogram's bounds. */
export interface ColumnStats {
	values: string[];
	freqs: number[];
	histogram: string[];
}

/** The share of a column's values that contain `word` (case aside), estimated as the planner does for `like '%…%'`. */
export function shareWith(stats: ColumnStats | undefined, word: string): number {
	if (!stats) return 0;
	const lower = word.toLowerCase();
	const has = (value: string) => value.toLowerCase().includes(lower);
	let common = 0;
	let listed = 0;
	stats.values.forEach((value, i) => {
		const freq = stats.freqs[i] ?? 0;
		listed += freq;
		if (has(value)) common += freq;
	});
	const rest = stats.histogram.length ? stats.histogram.filter(has).length / stats.histogram.length : 0;
	return common + Math.max(0, 1 - listed) * rest;
}

/** pg_stats changes when the table is analyzed; re-read at most this often. */
const STATS_TTL_MS = 5 * 60_000;
const cached = new WeakMap<Database, { until: number; stats: Promise<Map<SearchColumn, ColumnStats>> }>();

async function readStats(db: Database): Promise<Map<SearchColumn, ColumnStats>> {
	const entries = Object.entries(SEARCH_COLUMNS) as [SearchColumn, { table: string; column: string }][];
	const result = await db.execute(
		sql`select s.tablename as "table", s.attname as "column", s.most_common_vals::text::text[] as "values",
				s.most_common_freqs as "freqs", s.histogram_bounds::text::text[] as "histogram"
			from pg_stats as s
			where s.schemaname = current_schema() and (${sql.join(
				entries.map(([, c]) => sql`(s.tablename = ${c.table} and s.attname = ${c.column})`),
				sql` or `
			)})`
	);
	const stats = new Map<SearchColumn, ColumnStats>();
	for (const row of rowsOf<{
		table: string;
		column: string;
		values: string[] | null;
		freqs: number[] | null;
		histogram: string[] | null;
	}>(result)) {
		const name = entries.find(([, c]) => c.table === row.table && c.column === row.column)?.[0];
		if (name)
			stats.set(name, {
				values: row.values ?? [],
				freqs: (row.freqs ?? []).map(Number),
				histogram: row.histogram ?? []
			});
	}
	return stats;
}

/**
 * The common-word test for a search, or undefined when there is no search or it has a single word
 * (leaving that out would leave nothing to look up, so the statistics are not read).
 */
export async function commonWordsFor(
	db: Database,
	q: string | undefined,
	now = Date.now()
): Promise<CommonWord | undefined> {
	if ((q?.match(WORDS) ?? []).length < 2) return undefined;
	let entry = cached.get(db);
	if (!entry || entry.until <= now) {
		entry = { until: now + STATS_TTL_MS, stats: readStats(db) };
		cached.set(db, entry);
		const mine = entry;
		mine.stats.catch(() => cached.get(db) === mine && cached.delete(db));
	}
	const stats = await entry.stats;
	return (column, word) => shareWith(stats.get(column), word) >= COMMON_SHARE;
}
