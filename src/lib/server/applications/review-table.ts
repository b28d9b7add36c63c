import { and, eq, or, sql, type Placeholder, type SQL } from 'drizzle-orm';
import { stagedColumn } from './staged';
import * as v from 'valibot';
import { COUNT_CAP } from '$lib/applications/review-query';
import { ADMIN_PAGE_SIZE, LENGTHS, UUID_SOURCE } from '$lib/platform/limits';
import { rowsOf } from '../db/rows';
import { shapedStatement } from '../db/prepared';
import { STATES, type ApplicationStates, type ReviewState } from '$lib/applications/transitions';
import type { Database } from '../db/client';
import { applications, programs } from '../db/schema';
import { PROGRAM_SLUG } from '$lib/programs/programs';
import { commonWordsFor, indexPieces, type CommonWord, type SearchColumn } from './search-pieces';
// Votes (#27): the reviewers' tally, its filter and its order live in the reviews domain.
import { isRealTime } from '$lib/platform/real-time';
import { scoreKeySql, tallyColumns, tallyOf, votesFilterSql, type VoteTally } from '../reviews/tally';

/** Characters of the motivation a row shows. */
export const EXCERPT_LENGTH = 100;
/** Shorter searches cannot use the trigram indexes, so they are not run. */
export const MIN_SEARCH = 3;

// Votes (#27): under sort=score a cursor starts with the row's score key (`none` or a decimal) and `~`.
const CURSOR = new RegExp(
	`^(?:(none|\\d(?:\\.\\d{1,40})?)~)?(\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(?:\\.\\d{1,6})?Z)_(${UUID_SOURCE})$`
);

/** A row's place in the order: created_at to the microsecond, as Postgres keeps it (a Date would drop three digits). */
export interface Cursor {
	at: string;
	id: string;
	/** Votes (#27): the mean score the row sorted by under sort=score; null for none, absent under the other orders. */
	score?: string | null;
}

const cursor = v.pipe(
	v.string(),
	v.regex(CURSOR),
	v.transform((s): Cursor => {
		const [, score, at = '', id = ''] = CURSOR.exec(s) ?? [];
		return score === undefined ? { at, id } : { at, id, score: score === 'none' ? null : score };
	}),
	v.check((c) => isRealTime(c.at))
);

// C0 and C1 control characters and lone surrogates: no name, address or contact holds one, and Postgres
// refuses a NUL in text, so a search drops them where it enters.
// eslint-disable-next-line no-control-regex
const NOT_TEXT = /[\u0000-\u001f\u007f-\u009f]|\p{Cs}/gu;
const optional = <S extends v.GenericSchema>(schema: S) => v.fallback(v.optional(schema), undefined);
const state = <T extends readonly [string, ...string[]]>(states: T) => optional(v.picklist(states));

const tableQuerySchema = v.object({
	review: state(STATES.review),
	allowlist: state(STATES.allowlist),
	distribution: state(STATES.distribution),
	q: optional(
		v.pipe(
			v.string(),
			v.transform((q) => q.replace(NOT_TEXT, '')),
			v.trim(),
			v.maxLength(LENGTHS.search.max)
		)
	),
	sort: v.fallback(v.picklist(['oldest', 'newest', 'score']), 'oldest'),
	// Votes (#27): `ready` reached REVIEW_QUORUM current votes, `needed` not yet.
	votes: state(['ready', 'needed'] as const),
	// --- Eligibility on chain (#28): eligible at submission, `yes` or `no` (docs/eligibility.md). ---
	eligible: state(['yes', 'no'] as const),
	// --- end eligibility ---
	// Programmes and rounds (#57): a programme by its slug, a round by its id.
	program: optional(v.pipe(v.string(), v.regex(PROGRAM_SLUG))),
	round: optional(v.pipe(v.string(), v.regex(/^[1-9]\d{0,9}$/), v.transform(Number), v.maxValue(2 ** 31 - 1))),
	after: optional(cursor),
	before: optional(v.union([v.literal('end'), cursor]))
});

export type TableQuery = Omit<v.InferOutput<typeof tableQuerySchema>, 'after' | 'before'> & {
	after?: Cursor;
	/** `end`: the last page. */
	before?: Cursor | 'end';
	/** A search shorter than MIN_SEARCH characters, ignored. */
	shortSearch: boolean;
};

/** Reads the table's query string; anything unknown or malformed falls back to its default. */
export function parseTableQuery(params: URLSearchParams): TableQuery {
	const raw: Record<string, string> = {};
	for (const key of Object.keys(tableQuerySchema.entries)) {
		const value = params.get(key);
		if (value) raw[key] = value;
	}
	const query = v.parse(tableQuerySchema, raw);
	// Votes (#27): a cursor belongs to its order; one from another order starts from the first page.
	const scored = query.sort === 'score';
	if (query.after && (query.after.score !== undefined) !== scored) query.after = undefined;
	if (query.before && query.before !== 'end' && (query.before.score !== undefined) !== scored) query.before = undefined;
	const shortSearch = !!query.q && [...query.q].length < MIN_SEARCH;
	return { ...query, q: shortSearch ? undefined : query.q || undefined, shortSearch };
}

export const cursorText = (c: Cursor | 'end' | undefined) =>
	c === undefined || c === 'end' ? c : `${c.score === undefined ? '' : `${c.score ?? 'none'}~`}${c.at}_${c.id}`;

export interface TableRow extends ApplicationStates {
	id: string;
	applicantAddress: string;
	displayName: string;
	excerpt: string;
	/** ISO time with microseconds. */
	createdAt: string;
	notes: number;
	/** Votes (#27): the current votes' counts and mean score. */
	votes: VoteTally;
	/** The reviewers assigned to it, in the order they were (decision 0040). */
	assigned: string[];
	/** Its programme and round (#57). */
	programId: number;
	roundId: number;
	/** Its decision is held from its applicant until its round is released (staged.ts); absent when not. */
	staged?: true;
}

/** Votes (#27): what the table needs from the configuration. */
export interface TableOptions {
	/** REVIEW_QUORUM, for votes=ready|needed. */
	quorum: number;
	/** The team (issue 59): an admin of some programmes sees theirs only; absent means every programme. */
	programIds?: readonly number[];
}

export interface ReviewTable {
	rows: TableRow[];
	/** Cursors of the neighbouring pages, null where there is none. */
	next: string | null;
	previous: string | null;
	/** Applications per review state (and in all) under the other filters, counted up to COUNT_CAP + 1. */
	counts: Record<'all' | ReviewState, number>;
}

const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, '\\$&')}%`;

/**
 * A filter's value in the statement: as itself, or, given `values`, as a placeholder of that name whose value
 * is kept there, for a statement built once per shape (shapedStatement).
 */
function bound<T>(values: Record<string, unknown> | undefined, name: string, value: T): T | Placeholder {
	if (!values) return value;
	values[name] = value;
	return sql.placeholder(name);
}

/** The table's WHERE: every filter, and the review state unless the tabs count across it. */
export function tableFilter(
	query: Omit<TableQuery, 'after' | 'before'>,
	withReview = true,
	options: TableOptions = { quorum: 2 },
	common?: CommonWord,
	/** Given, every value is a placeholder kept here by name: the statement's text is then its shape's. */
	values?: Record<string, unknown>
): SQL[] {
	const where: SQL[] = [];
	const v = <T>(name: string, value: T) => bound(values, name, value);
	if (options.programIds)
		where.push(sql`${applications.programId} = any(${v('programIds', `{${options.programIds.join(',')}}`)}::int[])`);
	// Votes (#27): `ready` and `needed` compare differently, so each is its own shape.
	if (query.votes) where.push(votesFilterSql(query.votes, v(`quorum_${query.votes}`, options.quorum)));
	if (withReview && query.review) where.push(eq(applications.review, v('review', query.review)));
	// Programmes and rounds (#57): an unknown slug matches nothing (the subquery is null).
	if (query.program)
		where.push(
			sql`${applications.programId} = (select ${programs.id} from ${programs} where ${programs.slug} = ${v('program', query.program)})`
		);
	if (query.round !== undefined) where.push(eq(applications.roundId, v('round', query.round)));
	if (query.allowlist) where.push(eq(applications.allowlist, v('allowlist', query.allowlist)));
	if (query.distribution) where.push(eq(applications.distribution, v('distribution', query.distribution)));
	// --- Eligibility on chain (#28): the evidence kept at submission; applications without it match neither. ---
	if (query.eligible)
		where.push(
			sql`(${applications.eligibility} ->> 'ok') = ${v('eligible', query.eligible === 'yes' ? 'true' : 'false')}`
		);
	// --- end eligibility ---
	if (query.q) {
		// Each column has a pg_trgm GIN index, the text answers one on answers_search_text (drizzle/0006);
		// Postgres ORs the four bitmap scans.
		// A word most of a column's values contain is left out of its index condition (search-pieces.ts).
		const q = query.q;
		const matches = (column: SQL, name: SearchColumn) => {
			const pieces = common && indexPieces(q, (word) => common(name, word));
			if (!pieces) return sql`${column} ilike ${likePattern(q)}`;
			const looked = pieces.map((piece) => sql`${column} ilike ${likePattern(piece)}`);
			return sql`(${sql.join([...looked, sql`strpos(lower(${column}), lower(${q})) > 0`], sql` and `)})`;
		};
		const match = or(
			matches(sql`${applications.applicantAddress}`, 'applicant_address'),
			matches(sql`${applications.displayName}`, 'display_name'),
			matches(sql`${applications.contact}`, 'contact'),
			matches(sql`answers_search_text(${applications.answers})`, 'answers')
		);
		if (match) where.push(match);
	}
	return where;
}

/**
 * One page of the review table in two statements whatever the data (a search of several words reads
 * its columns' statistics once every five minutes besides: search-pieces.ts): the capped counts per review
 * state (and, for a search, its matches when few), then the rows with their note counts. Keyset
 * pagination over (created_at, id), read from the (state, created_at, id) indexes in either direction,
 * so the last page costs what the first does.
 */
export async function reviewTable(
	db: Database,
	query: TableQuery,
	pageSize = ADMIN_PAGE_SIZE,
	options: TableOptions = { quorum: 2 }
): Promise<ReviewTable> {
	// A `before` cursor reads the index the other way round; the rows are put back in order after.
	const backwards = query.before !== undefined;
	// Votes (#27): sort=score is highest mean score first, then longest waiting (no score counts as 0).
	const scored = query.sort === 'score';
	const ascending = (query.sort !== 'newest') !== backwards;
	// A search is counted first; when its matches are few (under SEARCH_SAMPLE, nearly every search) the
	// count hands back their ids and the rows are read by primary key, so the trigram scan runs once a
	// page, not twice (it is most of a search's cost at 1,000,000 applications: bench/README.md).
	const common = await commonWordsFor(db, query.q);
	const { counts, matches } = await countByReview(db, query, options, common);
	if (matches === '') return { rows: [], next: null, previous: null, counts };
	// Without a search the statement is built once per shape, its values as placeholders (shapedStatement);
	// a search is not prepared: its plan depends on how selective the pattern is, which a generic plan cannot know.
	const values: Record<string, unknown> | undefined = query.q ? undefined : {};
	const v = <T>(name: string, value: T) => bound(values, name, value);
	const where =
		matches === undefined
			? tableFilter(query, true, options, common, values)
			: [
					...tableFilter({ ...query, q: undefined }, true, options),
					sql`${applications.id} = any(string_to_array(${matches}, ',')::uuid[])`
				];
	const from = backwards ? (query.before === 'end' ? undefined : query.before) : query.after;
	// Votes (#27): under sort=score the key is (-mean score, created_at, id), ascending, the order of the
	// (review,) score indexes of drizzle/0011, so its pages are a walk over one of them as well.
	if (from) {
		const key = scored
			? sql`(${scoreKeySql}, ${applications.createdAt}, ${applications.id})`
			: sql`(${applications.createdAt}, ${applications.id})`;
		const at = scored
			? sql`(-(${v('fromScore', from.score ?? '0')}::numeric), ${v('fromAt', from.at)}::timestamptz, ${v('fromId', from.id)}::uuid)`
			: sql`(${v('fromAt', from.at)}::timestamptz, ${v('fromId', from.id)}::uuid)`;
		where.push(ascending ? sql`${key} > ${at}` : sql`${key} < ${at}`);
	}
	const select = (db: Database) => selectRows(db, where, { scored, ascending, limit: pageSize + 1 });
	const found = values
		? await shapedStatement(
				`rows:${Object.keys(values).join(',')}:${scored}:${ascending}:${pageSize}`,
				'review_table_rows',
				select
			)(db, values)
		: await select(db);
	const more = found.length > pageSize;
	const page = found.slice(0, pageSize);
	if (backwards) page.reverse();
	// `staged` only where true: the page carries 50 rows, and nearly every one is not.
	const rows = page.map(({ scoreKey: _s, staged, longer, ...r }) => ({
		...r,
		...(staged ? { staged: true as const } : {}),
		excerpt: excerptOf(r.excerpt, longer),
		votes: tallyOf(r.votes)
	}));
	// Votes (#27): under sort=score a cursor carries the row's score key.
	const cursorOf = (i: number) => {
		const r = page[i];
		return r ? (cursorText({ at: r.createdAt, id: r.id, ...(scored ? { score: r.scoreKey } : {}) }) as string) : null;
	};
	const first = cursorOf(0);
	const last = cursorOf(page.length - 1);
	return {
		rows,
		next: backwards ? (query.before === 'end' ? null : last) : more ? last : null,
		previous: backwards ? (more ? first : null) : query.after ? first : null,
		counts
	};
}

/** The table's page of rows, in its order: the rows' select of reviewTable. */
function selectRows(
	db: Database,
	where: SQL[],
	{ scored, ascending, limit }: { scored: boolean; ascending: boolean; limit: number }
) {
	const direction = ascending ? sql`asc` : sql`desc`;
	const order = [sql`${applications.createdAt} ${direction}`, sql`${applications.id} ${direction}`];
	if (scored) order.unshift(sql`${scoreKeySql} ${direction}`);
	return db
		.select({
			id: applications.id,
			applicantAddress: applications.applicantAddress,
			displayName: applications.displayName,
			excerpt: sql<string>`left(${applications.motivation}, ${EXCERPT_LENGTH + 1})`,
			// Whether the motivation goes on past what was sent: its whitespace made single spaces, what was
			// sent may be under EXCERPT_LENGTH characters and still not be all of it.
			longer: sql<boolean>`char_length(${applications.motivation}) > ${EXCERPT_LENGTH + 1}`,
			review: applications.review,
			// A decision held from its applicant until its round is released (staged.ts).
			staged: stagedColumn,
			allowlist: applications.allowlist,
			distribution: applications.distribution,
			createdAt: sql<string>`to_char(${applications.createdAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`,
			// Kept on the row by triggers (drizzle/0020).
			notes: applications.notesCount,
			// Votes (#27): the tally kept on the row (drizzle/0011)
			votes: tallyColumns,
			assigned: sql<
				string[]
			>`array(select r.reviewer_address from review_assignments as r where r.application_id = "applications"."id" order by r.assigned_at, r.reviewer_address)`,
			programId: applications.programId,
			roundId: applications.roundId,
			scoreKey: scored ? sql<string>`coalesce(${applications.votesMeanScore}, 0)::text` : sql<null>`null`
		})
		.from(applications)
		.where(where.length ? and(...where) : undefined)
		.orderBy(...order)
		.limit(limit);
}

/**
 * A row's excerpt of the motivation (the database sends its first EXCERPT_LENGTH + 1 characters, and
 * whether there is more, `longer`): its whitespace as single spaces, cut after EXCERPT_LENGTH characters
 * (code points: an emoji is never cut in half), with an ellipsis wherever the motivation goes on. Counted in
 * place rather than spread into an array of characters per row, which was about 1 % of the admin page's CPU
 * (bench/README.md "Figures behind the code").
 */
export function excerptOf(text: string, longer = false): string {
	const flat = text.replace(/\s+/g, ' ').trim();
	let end = 0;
	for (let n = 0; n < EXCERPT_LENGTH && end < flat.length; n++) end += flat.codePointAt(end)! > 0xffff ? 2 : 1;
	return end < flat.length || longer ? `${flat.slice(0, end).trimEnd()}…` : flat;
}

/**
 * One statement: for all and for each review state, how many match the other filters, up to COUNT_CAP + 1.
 * Without a search each count is its own capped index scan. With one, the trigram search runs once: the
 * matches (up to SEARCH_SAMPLE) are read into a CTE and counted there; only when there are more than
 * that do the per-state capped counts run, each repeating the search (an InitPlan in the CASE's other
 * branch runs only if that branch is taken). When they are fewer, it also returns their ids (in every
 * review state), comma-separated ('' for none), for the rows to be read by primary key.
 */
async function countByReview(
	db: Database,
	query: TableQuery,
	options: TableOptions,
	common?: CommonWord
): Promise<{ counts: ReviewTable['counts']; matches?: string }> {
	// Without a search, built once per shape with its values as placeholders (shapedStatement).
	const values: Record<string, unknown> | undefined = query.q ? undefined : {};
	const others = tableFilter(query, false, options, common, values);
	const capped = (review?: ReviewState) => {
		const where = review ? [...others, eq(applications.review, review)] : others;
		const filter = where.length ? sql`where ${and(...where)}` : sql``;
		return sql`(select count(*) from (select 1 from ${applications} ${filter} limit ${COUNT_CAP + 1}) as capped)`;
	};
	const states = STATES.review;
	let row: Record<string, unknown> | undefined;
	if (values) {
		[row] = await shapedStatement(`counts:${Object.keys(values).join(',')}`, 'review_table_counts', (db) =>
			db
				.select({ all: capped(), ...Object.fromEntries(states.map((s) => [s, capped(s)])) })
				.from(sql`(select 1) as one`)
		)(db, values);
	} else {
		const filter = sql`where ${and(...others)}`;
		const few = sql`(select count(*) from matched) < ${SEARCH_SAMPLE}`;
		const count = (review?: ReviewState) =>
			sql`case when ${few} then least((select count(*) from matched ${review ? sql`where review = ${review}` : sql``}), ${COUNT_CAP + 1}) else ${capped(review)} end`;
		// The ids as text rather than an array: PGlite and postgres.js read a text column alike.
		const result = await db.execute(
			sql`with matched as materialized (select ${applications.id} as id, ${applications.review} as review from ${applications} ${filter} limit ${SEARCH_SAMPLE})
				select ${count()} as "all", ${sql.join(
					states.map((s) => sql`${count(s)} as ${sql.identifier(s)}`),
					sql`, `
				)},
				case when ${few} then coalesce((select string_agg(id::text, ',') from matched), '') end as matches`
		);
		row = rowsOf(result)[0] as Record<string, unknown> | undefined;
	}
	if (!row) return { counts: { all: 0, pending: 0, needs_info: 0, approved: 0, rejected: 0, withdrawn: 0 } };
	const matches = typeof row.matches === 'string' ? row.matches : undefined;
	return {
		counts: {
			all: Number(row.all),
			pending: Number(row.pending),
			needs_info: Number(row.needs_info),
			approved: Number(row.approved),
			rejected: Number(row.rejected),
			withdrawn: Number(row.withdrawn)
		},
		matches
	};
}

/** Matches of a search counted in one pass; beyond this, the per-state capped counts take over. */
const SEARCH_SAMPLE = 5 * (COUNT_CAP + 1);
