import { and, asc, eq, getTableColumns, like, sql, type SQL } from 'drizzle-orm';
import * as v from 'valibot';
import { STATES } from '$lib/transitions';
import type { Database } from './db/client';
import { applications } from './db/schema';
import { historyOf, newestFirst, type ApplicationWithHistory } from './history';

export const PAGE_SIZE = 20;

const filterState = <T extends readonly string[]>(states: T) => v.fallback(v.optional(v.picklist(states)), undefined);

/** The /admin list's query string: filters by each state, an address (or part of one), a page. */
const adminQuerySchema = v.object({
	review: filterState(STATES.review),
	allowlist: filterState(STATES.allowlist),
	distribution: filterState(STATES.distribution),
	address: v.fallback(
		v.optional(v.pipe(v.string(), v.trim(), v.toLowerCase(), v.regex(/^(0x)?[0-9a-f]{0,40}$/))),
		undefined
	),
	page: v.fallback(
		v.pipe(v.optional(v.string(), '1'), v.transform(Number), v.integer(), v.minValue(1), v.maxValue(1_000_000)),
		1
	)
});

export type AdminQuery = v.InferOutput<typeof adminQuerySchema>;

/** Reads the list's query string (the one adminListHref writes); unknown values fall back to "any" and page 1. */
export function parseAdminQuery(params: URLSearchParams): AdminQuery & { invalidAddress: boolean } {
	const raw = Object.fromEntries(
		['review', 'allowlist', 'distribution', 'address', 'page']
			.map((k) => [k, params.get(k) ?? undefined] as const)
			.filter(([, value]) => value !== undefined && value !== '')
	);
	const query = v.parse(adminQuerySchema, raw);
	return { ...query, invalidAddress: raw.address !== undefined && query.address === undefined };
}

export interface ApplicationList {
	items: ApplicationWithHistory[];
	total: number;
	page: number;
	pageSize: number;
	pages: number;
}

/**
 * One page of applications for /admin, newest first, with their audit histories: two statements
 * whatever the page size (the page, carrying its total from an uncorrelated sub-select that runs
 * once; then every page row's history at once). The order and limit come from the created_at index.
 */
export async function listApplications(
	db: Database,
	query: AdminQuery,
	pageSize = PAGE_SIZE
): Promise<ApplicationList> {
	const where: SQL[] = [];
	if (query.review) where.push(eq(applications.review, query.review));
	if (query.allowlist) where.push(eq(applications.allowlist, query.allowlist));
	if (query.distribution) where.push(eq(applications.distribution, query.distribution));
	const address = query.address?.replace(/^0x/, '');
	if (address) where.push(like(applications.applicantAddress, `%${address}%`));
	const filter = where.length ? and(...where) : undefined;
	const rows = await db
		.select({
			...getTableColumns(applications),
			total: sql<number>`(select count(*) from ${applications}${filter ? sql` where ${filter}` : sql``})`.mapWith(
				Number
			)
		})
		.from(applications)
		.where(filter)
		.orderBy(newestFirst, asc(applications.id))
		.limit(pageSize)
		.offset((query.page - 1) * pageSize);
	// Past the last page there is no row to carry the total; only then is it counted on its own.
	const total = rows[0]?.total ?? (query.page > 1 ? await countApplications(db, filter) : 0);
	const history = await historyOf(
		db,
		rows.map((r) => r.id)
	);
	return {
		items: rows.map(({ total: _, ...r }) => ({ ...r, events: history.get(r.id) ?? [] })),
		total,
		page: query.page,
		pageSize,
		pages: Math.max(1, Math.ceil(total / pageSize))
	};
}

async function countApplications(db: Database, filter: SQL | undefined): Promise<number> {
	const [row] = await db
		.select({ n: sql<number>`count(*)`.mapWith(Number) })
		.from(applications)
		.where(filter);
	return row?.n ?? 0;
}
