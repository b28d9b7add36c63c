import type { SQL } from 'drizzle-orm';
import { PgDialect, type PgPreparedQuery, type PreparedQueryConfig } from 'drizzle-orm/pg-core';
import type { Database } from './client';

const dialect = new PgDialect();

/**
 * A raw statement run as a prepared one, as a query builder's `.prepare(name).execute()` runs
 * (`db.execute()` never prepares). On a Postgres server postgres.js then keeps the statement on each
 * connection, keyed by its text: after the first use there it is bound and executed in one round trip,
 * without being parsed again (docs/decisions/0031-prepared-statements-and-the-hot-path.md). PGlite
 * runs it as `db.execute()` would. `db` may be a transaction: the statement then runs on its connection. Only for statements whose text takes few shapes: each shape is kept
 * on each connection until the connection ends. The rows come back as `db.execute()`'s (see rowsOf).
 */
export function executePrepared(db: Pick<Database, '_'>, name: string, query: SQL): Promise<unknown> {
	return db._.session.prepareQuery(dialect.sqlToQuery(query), undefined, name, false).execute();
}

/** What a query builder's prepared statement holds besides its connection: taken once, run on any handle. */
interface BuiltStatement {
	query: ReturnType<PgPreparedQuery<PreparedQueryConfig>['getQuery']>;
	fields: unknown;
	joinsNotNullableMap: unknown;
	arrayMode: boolean;
	mapper: unknown;
}
/** The parts of drizzle's prepared query read here (postgres.js's and PGlite's both have them). */
type PreparedInternals = PgPreparedQuery<PreparedQueryConfig> & {
	fields?: unknown;
	customResultMapper?: unknown;
	joinsNotNullableMap?: unknown;
	isResponseInArrayMode(): boolean;
};

/**
 * A query builder's statement, built once per process (its text, parameters and result mapping; the
 * values given as `sql.placeholder(name)`), then run prepared under `name` on whichever handle each
 * call gives: the database or a transaction, on its connection. A builder's `.prepare(name)` builds the
 * statement's text again on every call, which for a wide select was a large share of a submission's
 * CPU (bench/history/2026-12-05-sign-in-answers.md). A placeholder compared with a column (`eq`,
 * `lte`) reaches the driver as given: a date goes as its ISO text, as the column's encoder writes it.
 * One given as an insert's value goes through the column's encoder, which makes JSON null of a null:
 * give JSON as its text, inside sql`…`, as the application's insert does (applications/submit.ts).
 */
export function builtOnce<Result>(
	name: string,
	build: (db: Database) => { prepare(name: string): PgPreparedQuery<PreparedQueryConfig & { execute: Result }> }
): (db: Database, values: Record<string, unknown>) => Promise<Result> {
	let built: BuiltStatement | undefined;
	return (db, values) => {
		if (!built) {
			const prepared = build(db).prepare(name) as unknown as PreparedInternals;
			built = {
				query: prepared.getQuery(),
				fields: prepared.fields,
				joinsNotNullableMap: prepared.joinsNotNullableMap,
				arrayMode: prepared.isResponseInArrayMode(),
				mapper: prepared.customResultMapper
			};
		}
		const session = db._.session as unknown as {
			prepareQuery(
				query: unknown,
				fields: unknown,
				name: string,
				arrayMode: boolean,
				mapper: unknown
			): PreparedInternals;
		};
		const query = session.prepareQuery(built.query, built.fields, name, built.arrayMode, built.mapper);
		query.joinsNotNullableMap = built.joinsNotNullableMap;
		return query.execute(values) as Promise<Result>;
	};
}

/**
 * Statements built once per shape (builtOnce above), run prepared with
 * the request's values, for a statement whose text takes a few forms: `shape` names the form (the review table's
 * filters present, its order and page size: applications/review-table.ts, where building its select and counts
 * each time was about a tenth of the admin page's CPU, bench/README.md "Figures behind the code"). The shapes
 * are bounded all the same; past the bound a shape is built each time.
 */
const shapes = new Map<string, (db: Database, values: Record<string, unknown>) => Promise<unknown>>();
const MAX_SHAPES = 512;
export function shapedStatement<Result>(
	shape: string,
	name: string,
	build: (db: Database) => { prepare(name: string): PgPreparedQuery<PreparedQueryConfig & { execute: Result }> }
): (db: Database, values: Record<string, unknown>) => Promise<Result> {
	// Each statement's shapes are its own: the key is its name and the shape.
	const key = `${name} ${shape}`;
	let statement = shapes.get(key);
	if (!statement) {
		statement = builtOnce(name, build);
		if (shapes.size < MAX_SHAPES) shapes.set(key, statement);
	}
	return statement as (db: Database, values: Record<string, unknown>) => Promise<Result>;
}
