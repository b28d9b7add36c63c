/**
 * The entry of `table` under a key that came from a request (a query value, an action name): only the
 * table's own entries, never a member of Object.prototype (`__proto__`, `toString`, `constructor`).
 */
export function ownEntry<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
	return Object.hasOwn(table, key) ? table[key] : undefined;
}
