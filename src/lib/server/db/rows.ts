/** The rows of `db.execute()`: postgres.js answers with an array, PGlite with `{ rows }`. */
export function rowsOf<T>(result: unknown): T[] {
	return Array.isArray(result) ? (result as T[]) : ((result as { rows: T[] }).rows ?? []);
}
