import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
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
